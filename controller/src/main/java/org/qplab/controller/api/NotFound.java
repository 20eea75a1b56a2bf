package org.qplab.controller.api;

/** The API answers 404 with this message. */
public class NotFound extends RuntimeException {

    public NotFound(String message) {
        super(message);
    }
}
