package org.qplab.agent.nvmeof;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
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
    private static final String[] DIRECTIONS = {"read", "write", "trim"};
    private static final int NOISE_LINES = 20;
    private static final int NOISE_LINE_CHARS = 400;

    /** Closed and not yet drained (a long run's intervals are not all kept: the caller drains them). */
    private final List<Interval> pending = new ArrayList<>();
    private final Deque<String> noise = new ArrayDeque<>();
    private long closed;
    private double peakBps;
    private int dumps;
    private JsonNode last;
    /** The previous dump's cumulative merged bins (value ns → I/Os), io_bytes, errors and time. */
    private TreeMap<Long, Long> previousBins = new TreeMap<>();
    private long previousBytes;
    private long previousErrors;
    private long previousTimestampMs = Long.MIN_VALUE;
    private long startMs = Long.MIN_VALUE;
    private String error;
    private boolean ended;

    /**
     * Reads fio's stdout to its end (blocking), turning each complete dump into an interval as soon as its closing
     * brace arrives. A stream that ends inside a dump (fio killed mid-dump) or a dump that is not JSON leaves an
     * error that {@link #summary} reports; the reading goes on to the end either way, so fio never blocks on a
     * full pipe.
     */
    public void read(InputStream in) {
        try (Reader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 64 * 1024)) {
            scan(r);
        } catch (IOException e) {
            fail("reading fio's output failed after " + dumps() + " complete status dumps: " + e.getMessage());
        } finally {
            synchronized (this) {
                ended = true;
            }
        }
    }

    private void scan(Reader r) throws IOException {
        StringBuilder dump = null;
        StringBuilder line = new StringBuilder();
        boolean lineStart = true;
        boolean inString = false;
        boolean escaped = false;
        int depth = 0;
        int c;
        while ((c = r.read()) != -1) {
            if (dump == null) {
                if (c == '{' && lineStart) {
                    dump = new StringBuilder(64 * 1024).append('{');
                    depth = 1;
                    inString = false;
                    escaped = false;
                    continue;
                }
                lineStart = c == '\n';
                if (lineStart) {
                    keepNoise(line);
                } else if (line.length() < NOISE_LINE_CHARS) {
                    line.append((char) c);
                }
                continue;
            }
            dump.append((char) c);
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
                parse(dump.toString());
                dump = null;
                lineStart = false;
            }
        }
        keepNoise(line);
        if (dump != null) {
            fail("fio's output ended inside status dump " + dumps() + " (" + dump.length() + " characters of it; fio "
                    + "was killed or crashed while printing) after " + dumps() + " complete dumps: no final report");
        }
    }

    private synchronized void keepNoise(StringBuilder line) {
        String text = line.toString().strip();
        line.setLength(0);
        if (!text.isEmpty()) {
            if (noise.size() == NOISE_LINES) {
                noise.removeFirst();
            }
            noise.addLast(text);
        }
    }

    private void parse(String text) {
        JsonNode dump;
        try {
            dump = JSON.readTree(text);
        } catch (JacksonException e) {
            fail("fio's status dump " + dumps() + " is not JSON: " + e.getOriginalMessage());
            synchronized (this) {
                dumps++;
            }
            return;
        }
        add(dump);
    }

    private synchronized void fail(String message) {
        if (error == null) {
            error = message;
        }
    }

    /** Takes one status dump (the next after those already added) and closes its interval. */
    public synchronized void add(JsonNode dump) {
        int index = dumps++;
        TreeMap<Long, Long> bins = new TreeMap<>();
        long bytes = 0;
        long errors = 0;
        long runtimeMs = 0;
        long clatMin = Long.MAX_VALUE;
        long clatMax = Long.MIN_VALUE;
        for (JsonNode job : dump.path("jobs")) {
            errors += job.path("total_err").asLong(0);
            for (String d : DIRECTIONS) {
                JsonNode dir = job.path(d);
                bytes += dir.path("io_bytes").asLong(0);
                runtimeMs = Math.max(runtimeMs, dir.path("runtime").asLong(0));
                JsonNode clat = dir.path("clat_ns");
                if (clat.path("N").asLong(0) > 0) {
                    clatMin = Math.min(clatMin, clat.path("min").asLong());
                    clatMax = Math.max(clatMax, clat.path("max").asLong());
                }
                for (Map.Entry<String, JsonNode> bin : clat.path("bins").properties()) {
                    bins.merge(Long.parseLong(bin.getKey()), bin.getValue().asLong(), Long::sum);
                }
            }
        }
        long timestampMs = dump.path("timestamp_ms").asLong(0);
        if (startMs == Long.MIN_VALUE && (runtimeMs > 0 || !bins.isEmpty())) {
            startMs = timestampMs - runtimeMs; // fio's runtime counts from the job's start: the first I/O's time
        }
        TreeMap<Integer, Long> buckets = new TreeMap<>();
        long cycles = 0;
        long lowNs = 0;
        long highNs = 0;
        for (Map.Entry<Long, Long> bin : bins.entrySet()) {
            long delta = bin.getValue() - previousBins.getOrDefault(bin.getKey(), 0L);
            if (delta < 0) {
                fail("fio's clat bin " + bin.getKey() + " ns went down from " + previousBins.get(bin.getKey()) + " to "
                        + bin.getValue() + " I/Os in status dump " + index + ": the dumps are not cumulative");
                delta = 0;
            }
            if (delta > 0) {
                if (cycles == 0) {
                    lowNs = bin.getKey();
                }
                highNs = bin.getKey();
                cycles += delta;
                buckets.merge(CycleBuckets.of(bin.getKey()), delta, Long::sum);
            }
        }
        for (Map.Entry<Long, Long> before : previousBins.entrySet()) {
            if (!bins.containsKey(before.getKey()) && before.getValue() > 0) {
                fail("fio's clat bin " + before.getKey() + " ns (" + before.getValue() + " I/Os) is missing from status "
                        + "dump " + index + ": the dumps are not cumulative");
            }
        }
        if (cycles > 0) {
            long firstMs = previousTimestampMs == Long.MIN_VALUE ? startMs : previousTimestampMs;
            long firstStartNs = Math.max(0, firstMs - startMs) * 1_000_000;
            long lastEndNs = Math.max(firstStartNs, (timestampMs - startMs) * 1_000_000);
            // a bin's value is its fio bucket's representative, which may lie past the times fio measured
            long minNs = Math.min(Math.max(lowNs, clatMin), clatMax);
            long maxNs = Math.max(Math.min(highNs, clatMax), clatMin);
            long deltaBytes = bytes - previousBytes;
            pending.add(new Interval(0, index, 1, cycles, cycles, deltaBytes, errors - previousErrors,
                    minNs, maxNs, firstStartNs, lastEndNs,
                    buckets.keySet().stream().mapToInt(Integer::intValue).toArray(),
                    buckets.values().stream().mapToLong(Long::longValue).toArray()));
            closed++;
            if (lastEndNs > firstStartNs) {
                peakBps = Math.max(peakBps, deltaBytes * 1e9 / (lastEndNs - firstStartNs));
            }
        }
        previousBins = bins;
        previousBytes = bytes;
        previousErrors = errors;
        previousTimestampMs = timestampMs;
        last = dump;
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
        return FioSummary.of(last, closed, peakBps);
    }
}
