package org.qplab.agent.nvmeof;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * fio's stdout under {@code --output-format=json+ --status-interval=Nms --group_reporting}, read as it comes: a
 * sequence of JSON status dumps, each cumulative since the job's start, the last one the final report. Each dump
 * closes one {@link Interval} (thread 0, index = the dump's number) with the I/Os whose completion latency entered
 * fio's clat histogram since the previous dump: read, write and trim merged, one I/O one cycle, each fio bin put in
 * the qplab bucket of its value ({@link CycleBuckets#of}). A dump without new I/O closes no interval (as the engine
 * closes none without cycles), so indexes may skip. The counts come from the bins, never from total_ios, which in a
 * periodic dump also counts I/Os still in flight.
 *
 * <p>fio prints notes ("note: both iodepth >= 1 and synchronous I/O engine ...") to stdout too: text outside a dump
 * is kept (its tail) for error messages. A dump starts with '{' at the start of a line, as fio prints them.
 *
 * <p>{@link #read} runs on one thread; {@link #drainIntervals}, {@link #summary} and the rest may be called from
 * others at any time.
 */
public final class FioOutput {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final int NOISE_LINES = 20;
    private static final int NOISE_LINE_CHARS = 400;
    private static final int READ_CHUNK = 64 * 1024;
    private static final int DUMP_START_CAPACITY = 64 * 1024;

    /** null until the first warm-up, then whether it read its sample as it should (it runs once either way). */
    private static volatile Boolean warm;

    /** Closed and not yet drained (a long run's intervals are not all kept: the caller drains them). */
    private final List<Interval> pending = new ArrayList<>();
    private final Deque<String> noise = new ArrayDeque<>();
    private long closed;
    private double peakBps;
    private int dumps;
    /** The last complete dump as fio printed it: after fio has ended, its final report. */
    private byte[] last;
    /** The previous dump's cumulative merged bins (value ns ascending → I/Os), io_bytes, errors and time. */
    private long[] previousBinNs = new long[0];
    private long[] previousBinCounts = new long[0];
    private int previousBinCount;
    private long previousBytes;
    private long previousErrors;
    private long previousTimestampMs = Long.MIN_VALUE;
    private long startMs = Long.MIN_VALUE;
    private String error;
    private boolean ended;

    /**
     * Reads fio's stdout to its end (blocking), turning each complete dump into an interval as soon as its closing
     * brace arrives. A stream that ends inside a dump (fio killed mid-dump) or a dump that is not the JSON fio prints
     * leaves an error that {@link #summary} reports; the reading goes on to the end either way, so fio never blocks
     * on a full pipe.
     *
     * <p>This runs beside fio, on a host where fio may have one CPU to itself or share it (a one-vCPU VM): every dump
     * costs what fio then does not get. So the stream is scanned as bytes in bulk (JSON's structural characters are
     * ASCII, so UTF-8 needs no decoding to find a dump's end) and a dump is read in one pass by {@link FioDump},
     * which keeps only the figures an interval needs (the clat bins, io_bytes, errors, runtime, timestamp); only the
     * last dump, the final report, is read into a tree, by {@link #summary}, after fio has ended.
     */
    public void read(InputStream in) {
        try (in) {
            scan(in);
        } catch (IOException e) {
            fail("reading fio's output failed after " + dumps() + " complete status dumps: " + e.getMessage());
        } finally {
            synchronized (this) {
                ended = true;
            }
        }
    }

    private void scan(InputStream in) throws IOException {
        byte[] buf = new byte[READ_CHUNK];
        byte[] dump = new byte[DUMP_START_CAPACITY];
        int dumpLength = -1; // -1: outside a dump
        ByteArrayOutputStream line = new ByteArrayOutputStream(NOISE_LINE_CHARS);
        boolean lineStart = true;
        boolean inString = false;
        boolean escaped = false;
        int depth = 0;
        int n;
        while ((n = in.read(buf)) != -1) {
            int i = 0;
            while (i < n) {
                if (dumpLength < 0) {
                    byte c = buf[i++];
                    if (c == '{' && lineStart) {
                        dump[0] = '{';
                        dumpLength = 1;
                        depth = 1;
                        inString = false;
                        escaped = false;
                        continue;
                    }
                    lineStart = c == '\n';
                    if (lineStart) {
                        keepNoise(line);
                    } else if (line.size() < NOISE_LINE_CHARS) {
                        line.write(c);
                    }
                    continue;
                }
                // inside a dump: find its end in this chunk, then copy the span at once
                int from = i;
                boolean complete = false;
                for (; i < n; i++) {
                    byte c = buf[i];
                    if (inString) {
                        if (escaped) {
                            escaped = false;
                        } else if (c == '\\') {
                            escaped = true;
                        } else if (c == '"') {
                            inString = false;
                        }
                    } else if (c == '"') {
                        inString = true;
                    } else if (c == '{') {
                        depth++;
                    } else if (c == '}' && --depth == 0) {
                        i++;
                        complete = true;
                        break;
                    }
                }
                int span = i - from;
                if (dumpLength + span > dump.length) {
                    dump = Arrays.copyOf(dump, Math.max(dump.length * 2, dumpLength + span));
                }
                System.arraycopy(buf, from, dump, dumpLength, span);
                dumpLength += span;
                if (complete) {
                    parse(dump, dumpLength);
                    dumpLength = -1;
                    lineStart = false;
                }
            }
        }
        keepNoise(line);
        if (dumpLength >= 0) {
            fail("fio's output ended inside status dump " + dumps() + " (" + dumpLength + " bytes of it; fio "
                    + "was killed or crashed while printing) after " + dumps() + " complete dumps: no final report");
        }
    }

    private synchronized void keepNoise(ByteArrayOutputStream line) {
        String text = line.toString(StandardCharsets.UTF_8).strip();
        line.reset();
        if (!text.isEmpty()) {
            if (noise.size() == NOISE_LINES) {
                noise.removeFirst();
            }
            noise.addLast(text);
        }
    }

    private void parse(byte[] dump, int length) {
        FioDump figures;
        try {
            figures = FioDump.read(dump, length);
        } catch (IllegalArgumentException e) {
            fail("fio's status dump " + dumps() + " is not the JSON fio prints: " + e.getMessage());
            synchronized (this) {
                dumps++;
            }
            return;
        }
        add(figures, Arrays.copyOf(dump, length));
    }

    private synchronized void fail(String message) {
        if (error == null) {
            error = message;
        }
    }

    /** Takes one status dump's text (the next after those already added) and closes its interval. */
    public void add(String dump) {
        byte[] bytes = dump.getBytes(StandardCharsets.UTF_8);
        parse(bytes, bytes.length);
    }

    /** Closes the interval of one dump's figures; text is the dump, kept as the final report until the next. */
    private synchronized void add(FioDump dump, byte[] text) {
        int index = dumps++;
        if (startMs == Long.MIN_VALUE && (dump.runtimeMs > 0 || dump.bins > 0)) {
            startMs = dump.timestampMs - dump.runtimeMs; // fio's runtime counts from the job's start: the first I/O's time
        }
        // both dumps' bins ascend by value: one walk over the two finds each bin's new I/Os, and they fall into
        // ascending qplab buckets (CycleBuckets.of does not decrease with the value)
        int[] buckets = new int[Math.max(1, dump.bins)];
        long[] counts = new long[Math.max(1, dump.bins)];
        int used = 0;
        long cycles = 0;
        long lowNs = 0;
        long highNs = 0;
        int j = 0;
        for (int i = 0; i < dump.bins; i++) {
            long ns = dump.binNs[i];
            while (j < previousBinCount && previousBinNs[j] < ns) {
                missing(index, j++);
            }
            long before = j < previousBinCount && previousBinNs[j] == ns ? previousBinCounts[j++] : 0;
            long delta = dump.binCount[i] - before;
            if (delta < 0) {
                fail("fio's clat bin " + ns + " ns went down from " + before + " to " + dump.binCount[i] + " I/Os in "
                        + "status dump " + index + ": the dumps are not cumulative");
                delta = 0;
            }
            if (delta > 0) {
                if (cycles == 0) {
                    lowNs = ns;
                }
                highNs = ns;
                cycles += delta;
                int bucket = CycleBuckets.of(ns);
                if (used > 0 && buckets[used - 1] == bucket) {
                    counts[used - 1] += delta;
                } else {
                    buckets[used] = bucket;
                    counts[used++] = delta;
                }
            }
        }
        while (j < previousBinCount) {
            missing(index, j++);
        }
        if (cycles > 0) {
            long firstMs = previousTimestampMs == Long.MIN_VALUE ? startMs : previousTimestampMs;
            long firstStartNs = Math.max(0, firstMs - startMs) * 1_000_000;
            long lastEndNs = Math.max(firstStartNs, (dump.timestampMs - startMs) * 1_000_000);
            // a bin's value is its fio bucket's representative, which may lie past the times fio measured
            long minNs = Math.min(Math.max(lowNs, dump.clatMin), dump.clatMax);
            long maxNs = Math.max(Math.min(highNs, dump.clatMax), dump.clatMin);
            long deltaBytes = dump.bytes - previousBytes;
            pending.add(new Interval(0, index, 1, cycles, cycles, deltaBytes, dump.errors - previousErrors,
                    minNs, maxNs, firstStartNs, lastEndNs, Arrays.copyOf(buckets, used), Arrays.copyOf(counts, used)));
            closed++;
            if (lastEndNs > firstStartNs) {
                peakBps = Math.max(peakBps, deltaBytes * 1e9 / (lastEndNs - firstStartNs));
            }
        }
        previousBinNs = dump.binNs;
        previousBinCounts = dump.binCount;
        previousBinCount = dump.bins;
        previousBytes = dump.bytes;
        previousErrors = dump.errors;
        previousTimestampMs = dump.timestampMs;
        last = text;
    }

    /** The previous dump's bin j is not in this one: fio's bins only grow, so the dumps are not cumulative. */
    private void missing(int index, int j) {
        if (previousBinCounts[j] > 0) {
            fail("fio's clat bin " + previousBinNs[j] + " ns (" + previousBinCounts[j] + " I/Os) is missing from status "
                    + "dump " + index + ": the dumps are not cumulative");
        }
    }

    /**
     * Reads a sample of fio's output (a note and three cumulative dumps with 100 to 200 clat bins, in fio's json+
     * layout) through the whole path — scan, dump, interval, summary — ten times, once per JVM, before the first fio
     * starts: loading these classes and running their loops until the JIT has compiled them costs ~0.3 s of one CPU
     * on a fast host and seconds on a TCG VM, which would otherwise be paid during the first runs, on the CPU fio is
     * measuring with. Returns whether the sample read as it should (three intervals whose I/Os are the summary's);
     * it never throws.
     */
    public static synchronized boolean warmUp() {
        if (warm != null) {
            return warm;
        }
        boolean ok = true;
        try {
            byte[] sample = warmUpSample();
            for (int round = 0; round < 10 && ok; round++) {
                FioOutput out = new FioOutput();
                out.read(new ByteArrayInputStream(sample));
                List<Interval> intervals = new ArrayList<>();
                out.drainIntervals(intervals);
                long cycles = intervals.stream().mapToLong(Interval::cycles).sum();
                ok = intervals.size() == 3 && Long.valueOf(cycles).equals(out.summary().get("cycles"));
            }
        } catch (RuntimeException e) {
            ok = false;
        }
        warm = ok;
        return ok;
    }

    private static byte[] warmUpSample() {
        StringBuilder text = new StringBuilder("note: warm-up\n");
        long ios = 0;
        for (int dump = 1; dump <= 3; dump++) {
            int bins = 50 + 50 * dump;
            StringBuilder binText = new StringBuilder();
            for (int b = 0; b < bins; b++) {
                binText.append(b == 0 ? "" : ",\n").append("            \"").append(10_000 + 4096L * b).append("\" : ")
                        .append(dump * (b + 1));
            }
            ios = 0;
            for (int b = 0; b < bins; b++) {
                ios += (long) dump * (b + 1);
            }
            text.append("{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp_ms\" : ").append(1000L * dump)
                    .append(",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"warm-up\",\n      \"job options\" : "
                            + "{ \"rw\" : \"randread\", \"bs\" : \"4k\", \"iodepth\" : \"16\" },\n      \"read\" : {\n"
                            + "        \"io_bytes\" : ").append(ios * 4096).append(",\n        \"bw_bytes\" : 4096,\n"
                            + "        \"iops\" : 1.000000,\n        \"runtime\" : ").append(1000L * dump)
                    .append(",\n        \"total_ios\" : ").append(ios).append(",\n        \"clat_ns\" : {\n"
                            + "          \"min\" : 10000,\n          \"max\" : ").append(10_000 + 4096L * bins)
                    .append(",\n          \"mean\" : 20000.000000,\n          \"stddev\" : 100.000000,\n"
                            + "          \"N\" : ").append(ios).append(",\n          \"percentile\" : { \"50.000000\" : "
                            + "20000, \"99.000000\" : 30000 },\n          \"bins\" : {\n").append(binText)
                    .append("\n          }\n        }\n      },\n      \"write\" : { \"io_bytes\" : 0, \"runtime\" : 0 },\n"
                            + "      \"usr_cpu\" : 1.000000,\n      \"sys_cpu\" : 1.000000\n    }\n  ]\n}\n");
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Moves the intervals closed since the last call into into; returns how many. */
    public synchronized int drainIntervals(List<Interval> into) {
        int n = pending.size();
        into.addAll(pending);
        pending.clear();
        return n;
    }

    /** Intervals closed so far, drained or not. */
    public synchronized long intervalsClosed() {
        return closed;
    }

    /** Status dumps read so far (the complete ones, and any that was not JSON). */
    public synchronized int dumps() {
        return dumps;
    }

    /** Why the output is unusable for a summary (truncated, not JSON), or null. */
    public synchronized String error() {
        return error;
    }

    /** True once {@link #read} reached the end of fio's output. */
    public synchronized boolean ended() {
        return ended;
    }

    /** The last lines fio printed outside its JSON dumps (notes, warnings), oldest first. */
    public synchronized List<String> otherOutput() {
        return List.copyOf(noise);
    }

    /**
     * The run's figures from fio's final report (the last dump) and the intervals, in the engine summary's shape
     * where it applies (see {@link FioSummary}). IllegalStateException when there is no complete final report.
     */
    public synchronized Map<String, Object> summary() {
        if (error != null) {
            throw new IllegalStateException(error);
        }
        if (last == null) {
            throw new IllegalStateException("fio printed no JSON report"
                    + (noise.isEmpty() ? "" : "; it printed: " + String.join(" | ", noise)));
        }
        return FioSummary.of(JSON.readTree(last), closed, peakBps);
    }
}
