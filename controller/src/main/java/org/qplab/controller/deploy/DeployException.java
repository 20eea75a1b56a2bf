package org.qplab.controller.deploy;

/** A deploy step failed; the message says which and what to do. */
public class DeployException extends RuntimeException {
    public DeployException(String message) {
        super(message);
    }

    public DeployException(String message, Throwable cause) {
        super(message, cause);
    }
}
