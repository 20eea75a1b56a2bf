package org.qplab.controller.api;

/**
 * The API answers 429: the request would pass a limit. The body names the limit (its property), its value, how much
 * is in use now and how much the request asked for.
 */
public class QuotaExceeded extends RuntimeException {

    private final String limit;
    private final long value;
    private final long inUse;
    private final long requested;

    public QuotaExceeded(String limit, long value, long inUse, long requested, String message) {
        super(message);
        this.limit = limit;
        this.value = value;
        this.inUse = inUse;
        this.requested = requested;
    }

    public String limit() {
        return limit;
    }

    public long value() {
        return value;
    }

    public long inUse() {
        return inUse;
    }

    public long requested() {
        return requested;
    }
}
