package org.qplab.controller.api;

import java.util.List;

/** A request the API refuses with 400, listing every problem found in it. */
public class BadRequest extends RuntimeException {

    private final String error;
    private final List<Violation> violations;

    public BadRequest(String error, List<Violation> violations) {
        super(error + ": " + violations);
        this.error = error;
        this.violations = List.copyOf(violations);
    }

    public String error() {
        return error;
    }

    public List<Violation> violations() {
        return violations;
    }
}
