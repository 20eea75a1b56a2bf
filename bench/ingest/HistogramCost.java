package org.qplab.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.qplab.protocol.StoredHistogram;

/**
 * The controller's CPU per interval for reading a frame and having its histograms in the stored format, in isolation
 * (issue 38, frame layout v3): a layout v2 frame is decoded (pair lists into int[]/long[]) and each histogram encoded
 * into the runs format ({@code StoredHistogram.encode}, what FrameWriter did per interval); a v3 frame is decoded
 * (each histogram checked in the runs format, {@code StoredHistogram.checkRuns}, without building its arrays, and its
 * bytes kept: what the controller's ingest reads). No database, no WebSocket:
 * only the part that layout v3 moves to the agents.
 *
 * <p>Histograms of the bench/ingest simulator's shape (IntervalAgents: log-normal cycle times around 32 µs, σ 0.15-0.25,
 * 0.01 % tail 2-30 × the median, about 400,000 cycles), two kinds: "simulator" (expected counts rounded, as the
 * simulator's templates: smoother than measured ones) and "poisson" (every cycle drawn one by one, as an engine counts
 * them). Frames of 4 intervals (an agent of 4 threads). The variants (before, after, and the parts: v2's decoding alone,
 * the runs format's encoding and decoding alone) are measured interleaved, each round about --round-ms of CPU time, the
 * order rotated each round; printed: CPU ns per interval (the thread's), the median over --rounds rounds and the range.
 * <pre>
 *   ./mvnw -q package -DskipTests   (protocol/target/classes is all it needs)
 *   javac -cp protocol/target/classes -d /tmp/hc bench/ingest/HistogramCost.java
 *   java -cp protocol/target/classes:/tmp/hc org.qplab.bench.HistogramCost [--rounds 15] [--round-ms 400]
 * </pre>
 */
public final class HistogramCost {

    private static final int THREADS = 4;
    private static final int FRAMES = 64;
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static long sink;

    public static void main(String[] args) {
        int rounds = 15;
        int roundMs = 400;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--round-ms" -> roundMs = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("usage: HistogramCost [--rounds N] [--round-ms MS]");
            }
        }
        Random random = new Random(38);
        for (String kind : List.of("simulator", "poisson")) {
            List<ByteBuffer> v2 = new ArrayList<>();
            List<ByteBuffer> v3 = new ArrayList<>();
            List<Interval> all = new ArrayList<>();
            List<byte[]> stored = new ArrayList<>();
            int buckets = 0;
            for (int f = 0; f < FRAMES; f++) {
                List<Interval> intervals = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    Interval i = interval(t, f, kind.equals("poisson"), random);
                    buckets += i.buckets().length;
                    intervals.add(i);
                    all.add(i);
                    stored.add(StoredHistogram.encode(i.buckets(), i.counts()));
                }
                IntervalFrame frame = new IntervalFrame(1, f, intervals);
                v2.add(frame.encode(2));
                v3.add(frame.encode());
            }
            System.out.printf(Locale.ROOT, "%s: %d frames of %d intervals, %.0f buckets an interval; frame %.0f B (v2), "
                            + "%.0f B (v3)%n", kind, FRAMES, THREADS, buckets / (double) (FRAMES * THREADS),
                    v2.stream().mapToInt(ByteBuffer::remaining).average().orElse(0),
                    v3.stream().mapToInt(ByteBuffer::remaining).average().orElse(0));
            String[] names = {"v2: decode + encode the runs format (before)", "v3: decode, checking (after)",
                    "  of which v2 decode alone", "  of which StoredHistogram.encode alone",
                    "  of which StoredHistogram.decode alone", "  of which StoredHistogram.checkRuns alone"};
            List<IntSupplier> variants = List.of(() -> frames(v2), () -> frames(v3), () -> decodeOnly(v2),
                    () -> encode(all), () -> decode(stored), () -> check(stored));
            List<List<Double>> ns = new ArrayList<>();
            variants.forEach(v -> ns.add(new ArrayList<>()));
            for (int warm = 0; warm < 3; warm++) { // the JIT's compilation of every path
                for (IntSupplier v : variants) {
                    time(v, roundMs);
                }
            }
            for (int r = 0; r < rounds; r++) { // interleaved, the order rotated each round
                for (int k = 0; k < variants.size(); k++) {
                    int v = (k + r) % variants.size();
                    ns.get(v).add(time(variants.get(v), roundMs));
                }
            }
            for (int k = 0; k < names.length; k++) {
                double[] sorted = ns.get(k).stream().mapToDouble(Double::doubleValue).sorted().toArray();
                System.out.printf(Locale.ROOT, "  %-46s %7.0f CPU ns per interval (median of %d rounds; %.0f-%.0f)%n", names[k],
                        sorted[sorted.length / 2], sorted.length, sorted[0], sorted[sorted.length - 1]);
            }
        }
        System.out.println("(checksum " + sink + ")");
    }

    /**
     * Runs the variant over and over for about ms of this thread's CPU time; CPU ns per interval (what it returns: the
     * intervals it handled). CPU time, not the clock's: on a shared machine the thread is preempted, and that time is
     * not the work's.
     */
    private static double time(IntSupplier variant, int ms) {
        long intervals = 0;
        long start = CPU.getCurrentThreadCpuTime();
        long end = start + ms * 1_000_000L;
        long now;
        do {
            intervals += variant.getAsInt();
            now = CPU.getCurrentThreadCpuTime();
        } while (now < end);
        return (now - start) / (double) intervals;
    }

    /** What the controller does with a frame: decodes it, has each interval's stored histogram (v2: encoded here). */
    private static int frames(List<ByteBuffer> frames) {
        int n = 0;
        for (ByteBuffer f : frames) {
            IntervalFrame frame = IntervalFrame.decode(f);
            for (int k = 0; k < frame.intervalCount(); k++) {
                sink += frame.storedHistogram(k).length;
            }
            n += frame.intervalCount();
        }
        return n;
    }

    private static int decodeOnly(List<ByteBuffer> frames) {
        int n = 0;
        for (ByteBuffer f : frames) {
            IntervalFrame frame = IntervalFrame.decode(f);
            sink += frame.cycles();
            n += frame.intervalCount();
        }
        return n;
    }

    private static int encode(List<Interval> intervals) {
        for (Interval i : intervals) {
            sink += StoredHistogram.encode(i.buckets(), i.counts()).length;
        }
        return intervals.size();
    }

    private static int decode(List<byte[]> stored) {
        for (byte[] h : stored) {
            sink += StoredHistogram.decode(h).total();
        }
        return stored.size();
    }

    private static int check(List<byte[]> stored) {
        for (byte[] h : stored) {
            sink += StoredHistogram.checkRuns(h);
        }
        return stored.size();
    }

    private static Interval interval(int thread, long index, boolean poisson, Random random) {
        double median = 32_000 * (0.9 + 0.2 * random.nextDouble());
        double sigma = 0.15 + 0.1 * random.nextDouble();
        long cycles = Math.round(400_000 * (0.95 + 0.1 * random.nextDouble()));
        TreeMap<Integer, Long> counts = new TreeMap<>();
        long tail = Math.max(1, cycles / 10_000);
        for (long i = 0; i < tail; i++) {
            counts.merge(CycleBuckets.of((long) (median * 2 * Math.pow(15, random.nextDouble()))), 1L, Long::sum);
        }
        long body = cycles - tail;
        if (poisson) {
            for (long i = 0; i < body; i++) {
                counts.merge(CycleBuckets.of((long) (median * Math.exp(sigma * random.nextGaussian()))), 1L, Long::sum);
            }
        } else { // the simulator's: expected counts, rounded at random, the remainder in the first bucket of the most
            int from = CycleBuckets.of((long) (median * Math.exp(-5 * sigma)));
            int to = CycleBuckets.of((long) (median * Math.exp(5 * sigma)));
            long placed = 0;
            for (int b = from; b <= to; b++) {
                double p = normalCdf(Math.log(CycleBuckets.highNs(b) / median) / sigma)
                        - normalCdf(Math.log(CycleBuckets.lowNs(b) / median) / sigma);
                long c = (long) (body * p) + (random.nextDouble() < body * p - Math.floor(body * p) ? 1 : 0);
                if (c > 0) {
                    counts.merge(b, c, Long::sum);
                    placed += c;
                }
            }
            int mode = counts.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElseThrow().getKey();
            counts.merge(mode, body - placed, Long::sum);
        }
        int[] buckets = counts.keySet().stream().mapToInt(Integer::intValue).toArray();
        long[] values = counts.values().stream().mapToLong(Long::longValue).toArray();
        long min = CycleBuckets.lowNs(buckets[0]);
        long max = CycleBuckets.highNs(buckets[buckets.length - 1]) - 1;
        long t0 = index * 100_000_000L;
        return new Interval(thread, index, 1, Arrays.stream(values).sum(), cycles, cycles * 64, 0, min, max, t0 + 17,
                t0 + 99_990_000L, buckets, values);
    }

    /** The standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7), as IntervalAgents'. */
    private static double normalCdf(double z) {
        double x = Math.abs(z) / Math.sqrt(2);
        double t = 1 / (1 + 0.3275911 * x);
        double erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
                * Math.exp(-x * x);
        return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
    }
}
