package org.qplab.controller.api;

/** The API answers 403: the caller's account may not do this to this resource (roles are checked before). */
public class Forbidden extends RuntimeException {

    public Forbidden(String message) {
        super(message);
    }
}
