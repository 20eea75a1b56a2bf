package org.qplab.agent;

import java.time.Instant;

/** The agent logs one line per event to stderr; it runs in terminals, tests and VMs alike. */
public final class Log {

    private Log() {
    }

    public static void info(String message) {
        System.err.println(Instant.now() + " qplab-agent " + message);
    }
}
