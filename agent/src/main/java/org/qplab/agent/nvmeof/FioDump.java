package org.qplab.agent.nvmeof;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What one of fio's json+ status dumps holds for an interval, read in one pass over its bytes: read, write and trim
 * merged over the jobs (one job under group_reporting): the cumulative clat bins (value ns → I/Os, ascending by
 * value), io_bytes, total_err, the longest runtime, the clat minimum and maximum over the directions with I/O, and
 * the dump's timestamp_ms.
 *
 * <p>Why not a JSON library: this runs once a second beside fio, on a host where fio may share its one CPU (a
 * one-vCPU VM). A general parser's token stream (dozens of methods, a symbol table, boxed maps) costs that CPU
 * twice: interpreting it, then the JIT compiling it — measured in the Soft-RoCE lab at more than a second of a
 * 5-second run. This reader is one loop and keeps primitive arrays; the final report, once fio has ended, is read
 * with Jackson ({@link FioSummary}).
 *
 * <p>It checks what it walks: brackets that do not match, a bin that is not a number, or bins out of order are
 * refused (IllegalArgumentException naming the byte offset); a key it does not know is skipped with its value.
 */
final class FioDump {

    private static final int NONE = -1;
    private static final int TIMESTAMP_MS = 0;
    private static final int JOBS = 1;
    private static final int READ = 2;
    private static final int WRITE = 3;
    private static final int TRIM = 4;
    private static final int IO_BYTES = 5;
    private static final int RUNTIME = 6;
    private static final int CLAT_NS = 7;
    private static final int N = 8;
    private static final int MIN = 9;
    private static final int MAX = 10;
    private static final int BINS = 11;
    private static final int TOTAL_ERR = 12;
    /** Not a key of fio's: the member is one clat bin, its value ns in binKey. */
    private static final int BIN = 13;
    private static final byte[][] KEYS = keys("timestamp_ms", "jobs", "read", "write", "trim", "io_bytes", "runtime",
            "clat_ns", "N", "min", "max", "bins", "total_err");
    private static final int MAX_DEPTH = 64;

    /** The merged bins: binNs[i] ascending, binCount[i] I/Os, for i below bins. */
    final long[] binNs;
    final long[] binCount;
    final int bins;
    final long bytes;
    final long errors;
    final long runtimeMs;
    /** Long.MAX_VALUE / Long.MIN_VALUE when no direction had I/O. */
    final long clatMin;
    final long clatMax;
    final long timestampMs;

    private FioDump(long[] binNs, long[] binCount, int bins, long bytes, long errors, long runtimeMs, long clatMin,
            long clatMax, long timestampMs) {
        this.binNs = binNs;
        this.binCount = binCount;
        this.bins = bins;
        this.bytes = bytes;
        this.errors = errors;
        this.runtimeMs = runtimeMs;
        this.clatMin = clatMin;
        this.clatMax = clatMax;
        this.timestampMs = timestampMs;
    }

    private static byte[][] keys(String... names) {
        byte[][] keys = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            keys[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        return keys;
    }

    /** Reads dump[0, length): one JSON object as fio prints it. IllegalArgumentException when it is not one. */
    static FioDump read(byte[] dump, int length) {
        boolean[] isObject = new boolean[MAX_DEPTH + 1];
        int[] keyAt = new int[MAX_DEPTH + 1]; // the member key under which the container at each depth opened
        int depth = 0;
        int key = NONE; // the current member's key (objects), NONE before it or in an array
        boolean expectKey = false;
        boolean done = false;
        long timestampMs = 0;
        long bytes = 0;
        long errors = 0;
        long runtimeMs = 0;
        long clatMin = Long.MAX_VALUE;
        long clatMax = Long.MIN_VALUE;
        long clatN = 0;
        long clatLow = 0;
        long clatHigh = 0;
        long[] ns = new long[256];
        long[] count = new long[256];
        int bins = 0;
        int segment = 0; // where the current direction's bins began
        long binKey = 0;
        int i = 0;
        while (i < length) {
            byte c = dump[i];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ':') {
                i++;
                continue;
            }
            if (done) {
                throw refused("text after the dump's end", i);
            }
            if (c == ',') {
                expectKey = depth > 0 && isObject[depth];
                key = NONE;
                i++;
                continue;
            }
            if (c == '{' || c == '[') {
                if (++depth > MAX_DEPTH) {
                    throw refused("nested deeper than " + MAX_DEPTH, i);
                }
                isObject[depth] = c == '{';
                keyAt[depth] = key;
                if (c == '{' && key == CLAT_NS && depth == 5) {
                    clatN = 0;
                    clatLow = 0;
                    clatHigh = 0;
                }
                if (c == '{' && key == BINS && depth == 6 && keyAt[5] == CLAT_NS) {
                    segment = bins;
                }
                key = NONE;
                expectKey = c == '{';
                i++;
                continue;
            }
            if (c == '}' || c == ']') {
                if (depth == 0 || isObject[depth] != (c == '}')) {
                    throw refused("a '" + (char) c + "' that closes nothing open", i);
                }
                if (inClatBins(depth, keyAt) && segment > 0) {
                    int merged = merge(ns, count, segment, bins);
                    bins = merged;
                }
                if (depth == 5 && keyAt[5] == CLAT_NS && inDirection(keyAt) && clatN > 0) {
                    clatMin = Math.min(clatMin, clatLow);
                    clatMax = Math.max(clatMax, clatHigh);
                }
                key = NONE;
                expectKey = false;
                done = --depth == 0;
                i++;
                continue;
            }
            if (c == '"') {
                int start = ++i;
                while (i < length && dump[i] != '"') {
                    i += dump[i] == '\\' ? 2 : 1;
                }
                if (i >= length) {
                    throw refused("a string that does not end", start - 1);
                }
                int end = i++;
                if (!expectKey) {
                    key = NONE; // a string value
                    continue;
                }
                expectKey = false;
                if (inClatBins(depth, keyAt)) {
                    binKey = digits(dump, start, end);
                    key = BIN;
                } else {
                    key = lookUp(dump, start, end);
                }
                continue;
            }
            if (c == '-' || c >= '0' && c <= '9') {
                int start = i;
                boolean negative = c == '-';
                if (negative) {
                    i++;
                }
                long value = 0;
                int digits = 0;
                while (i < length && dump[i] >= '0' && dump[i] <= '9') {
                    value = value * 10 + (dump[i++] - '0');
                    digits++;
                }
                while (i < length && (dump[i] == '.' || dump[i] == 'e' || dump[i] == 'E' || dump[i] == '+'
                        || dump[i] == '-' || dump[i] >= '0' && dump[i] <= '9')) {
                    i++; // a fraction or exponent: these figures are integers; the integer part is kept
                }
                if (digits == 0) {
                    throw refused("a number fio does not print", start);
                }
                if (digits > 18 && key != NONE) { // a figure this reader keeps; one it skips may be as long as it likes
                    throw refused("a number longer than 18 digits", start);
                }
                if (negative) {
                    value = -value;
                }
                if (depth == 1 && key == TIMESTAMP_MS) {
                    timestampMs = value;
                } else if (depth == 3 && keyAt[2] == JOBS && key == TOTAL_ERR) {
                    errors += value;
                } else if (depth == 4 && inDirection(keyAt)) {
                    if (key == IO_BYTES) {
                        bytes += value;
                    } else if (key == RUNTIME) {
                        runtimeMs = Math.max(runtimeMs, value);
                    }
                } else if (depth == 5 && keyAt[5] == CLAT_NS && inDirection(keyAt)) {
                    if (key == N) {
                        clatN = value;
                    } else if (key == MIN) {
                        clatLow = value;
                    } else if (key == MAX) {
                        clatHigh = value;
                    }
                } else if (key == BIN) {
                    if (bins > segment && ns[bins - 1] >= binKey) {
                        throw refused("clat bins out of order (" + binKey + " ns after " + ns[bins - 1] + " ns)", start);
                    }
                    if (bins == ns.length) {
                        ns = Arrays.copyOf(ns, bins * 2);
                        count = Arrays.copyOf(count, bins * 2);
                    }
                    ns[bins] = binKey;
                    count[bins++] = value;
                }
                key = NONE;
                continue;
            }
            if (c >= 'a' && c <= 'z') { // true, false, null
                while (i < length && dump[i] >= 'a' && dump[i] <= 'z') {
                    i++;
                }
                key = NONE;
                continue;
            }
            throw refused("an unexpected '" + (char) (c & 0xff) + "'", i);
        }
        if (!done) {
            throw refused("the dump ends with " + depth + " brackets open", length);
        }
        return new FioDump(ns, count, bins, bytes, errors, runtimeMs, clatMin, clatMax, timestampMs);
    }

    /** Whether the container at depth is jobs[i].{read,write,trim}.clat_ns.bins (not lat_ns's or slat_ns's). */
    private static boolean inClatBins(int depth, int[] keyAt) {
        return depth == 6 && keyAt[6] == BINS && keyAt[5] == CLAT_NS && inDirection(keyAt);
    }

    /** Whether depth 4 is a direction object of a job: jobs[i].read, .write or .trim. */
    private static boolean inDirection(int[] keyAt) {
        return keyAt[2] == JOBS && (keyAt[4] == READ || keyAt[4] == WRITE || keyAt[4] == TRIM);
    }

    private static int lookUp(byte[] dump, int start, int end) {
        int length = end - start;
        for (int k = 0; k < KEYS.length; k++) {
            byte[] name = KEYS[k];
            if (name.length == length && Arrays.equals(name, 0, length, dump, start, end)) {
                return k;
            }
        }
        return NONE;
    }

    private static long digits(byte[] dump, int start, int end) {
        if (end == start || end - start > 18) {
            throw refused("a clat bin that is not a number of ns", start);
        }
        long value = 0;
        for (int i = start; i < end; i++) {
            if (dump[i] < '0' || dump[i] > '9') {
                throw refused("a clat bin that is not a number of ns", start);
            }
            value = value * 10 + (dump[i] - '0');
        }
        return value;
    }

    /**
     * Merges the ascending run [from, to) into the ascending run [0, from), adding the counts of equal values (read
     * and write bins of one latency); returns the merged length.
     */
    private static int merge(long[] ns, long[] count, int from, int to) {
        long[] mergedNs = new long[to];
        long[] mergedCount = new long[to];
        int a = 0;
        int b = from;
        int m = 0;
        while (a < from || b < to) {
            if (b >= to || a < from && ns[a] < ns[b]) {
                mergedNs[m] = ns[a];
                mergedCount[m++] = count[a++];
            } else if (a >= from || ns[b] < ns[a]) {
                mergedNs[m] = ns[b];
                mergedCount[m++] = count[b++];
            } else {
                mergedNs[m] = ns[a];
                mergedCount[m++] = count[a++] + count[b++];
            }
        }
        System.arraycopy(mergedNs, 0, ns, 0, m);
        System.arraycopy(mergedCount, 0, count, 0, m);
        return m;
    }

    private static IllegalArgumentException refused(String what, int offset) {
        return new IllegalArgumentException(what + " at byte " + offset);
    }
}
