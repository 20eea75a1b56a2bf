package org.qplab.controller.security;

import java.time.Duration;
import org.springframework.security.core.AuthenticationException;

/** A try refused unchecked because its account or address is waiting (429 with Retry-After). */
public class Throttled extends AuthenticationException {

    private final Duration wait;

    Throttled(Duration wait, String why) {
        super(why + ": try again in " + seconds(wait) + " s");
        this.wait = wait;
    }

    /** Whole seconds to wait (Retry-After), at least 1. */
    public long retryAfterSeconds() {
        return seconds(wait);
    }

    private static long seconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }
}
