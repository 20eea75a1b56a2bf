package org.qplab.controller;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** Polls a condition until it holds; fails naming what was awaited, with diagnostics (agent logs, ...). */
public final class Await {

    private Await() {
    }

    public static void until(String what, Duration timeout, Callable<Boolean> condition, Supplier<String> diagnostics)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.call()) {
                return;
            }
            Thread.sleep(100);
        }
        fail("timed out after " + timeout + " waiting until " + what + "\n" + diagnostics.get());
    }
}
