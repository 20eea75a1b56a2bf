package org.qplab.agent.log;

import java.time.Instant;

/**
 * The agent logs one line per event to stderr; it runs in terminals, tests and VMs alike. Its own package, below the
 * others: the daemon and its providers (nvmeof) both log, and neither reaches the other through it.
 */
public final class Log {

    private Log() {
    }

    public static void info(String message) {
        System.err.println(Instant.now() + " qplab-agent " + message);
    }
}
