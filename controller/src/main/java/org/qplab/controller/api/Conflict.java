package org.qplab.controller.api;

/** The API answers 409: the request does not fit the resource's state. */
public class Conflict extends RuntimeException {

    public Conflict(String message) {
        super(message);
    }
}
