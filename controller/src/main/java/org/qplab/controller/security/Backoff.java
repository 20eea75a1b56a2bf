package org.qplab.controller.security;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failures per key (an account name, an address) with exponential back-off: the first {@code freeTries} failures
 * cost nothing; each one after that makes the key wait {@code firstDelay}, then twice as long, up to
 * {@code maxDelay}, counted from that failure. A key quiet for {@code forgetAfter} past its wait is forgotten. At
 * most {@code maxKeys} keys are kept: past that, keys that no longer wait are dropped first, and a new key is not
 * tracked while every kept one still waits (then only the other dimension of a try, e.g. its address, holds it).
 * Not thread-safe: {@link LoginThrottle} holds its lock around every call.
 */
final class Backoff {

    private record Entry(int failures, long lastFailure) {}

    private final SecurityProperties.Throttle settings;
    private final LongSupplier nanoTime;
    private final int maxKeys;
    private final Map<String, Entry> entries = new HashMap<>();

    Backoff(SecurityProperties.Throttle settings, LongSupplier nanoTime, int maxKeys) {
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.maxKeys = maxKeys;
    }

    /** How long the key must wait before its next try; zero when it may try now. */
    Duration wait(String key) {
        Entry entry = entries.get(key);
        if (entry == null) {
            return Duration.ZERO;
        }
        long left = entry.lastFailure() + delayNanos(entry.failures()) - nanoTime.getAsLong();
        if (left > 0) {
            return Duration.ofNanos(left);
        }
        if (-left > settings.forgetAfter().toNanos()) {
            entries.remove(key);
        }
        return Duration.ZERO;
    }

    /** Counts one failure of the key, now. */
    void failed(String key) {
        long now = nanoTime.getAsLong();
        if (!entries.containsKey(key) && entries.size() >= maxKeys && !makeRoom(now)) {
            return;
        }
        entries.merge(key, new Entry(1, now), (old, one) -> new Entry(Math.min(old.failures() + 1, 1_000), now));
    }

    /** Takes back one failure counted in advance (a try that turned out right). */
    void undo(String key) {
        entries.computeIfPresent(key, (k, entry) -> entry.failures() <= 1 ? null
                : new Entry(entry.failures() - 1, entry.lastFailure()));
    }

    /** Forgets the key's failures (its account just proved its password). */
    void reset(String key) {
        entries.remove(key);
    }

    int size() {
        return entries.size();
    }

    private long delayNanos(int failures) {
        int beyond = failures - settings.freeTries();
        if (beyond <= 0) {
            return 0;
        }
        long first = settings.firstDelay().toNanos();
        long max = settings.maxDelay().toNanos();
        int doublings = Math.min(beyond - 1, 62);
        return first > (max >> doublings) ? max : Math.min(max, first << doublings);
    }

    private boolean makeRoom(long now) {
        entries.values().removeIf(e -> now - e.lastFailure() - delayNanos(e.failures()) > 0);
        return entries.size() < maxKeys;
    }
}
