package org.qplab.agent;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Many simulated agents in one JVM, for bench/ingest: each is its own WebSocket connection to the controller
 * (the agent's own client, {@link BlockingWebSocket}: one reader thread per connection), with its own agent id,
 * the controller's agent token (env QPLAB_AGENT_TOKEN, never argv) and a hello, and takes the loopback runs the controller assigns it. No engine runs:
 * for each run the agent answers RunStarted, then every interval_ms sends one frame with one interval
 * per thread of the spec (sequence numbers from 0), as the real agent's FrameBatcher does when a run's threads
 * close their intervals together, and at the end RunFinished with a summary whose cycles, messages and bytes
 * are the sums of the intervals it sent and whose batches is the number of frames.
 *
 * <p>Intervals look like a fast NIC's: about --cycles cycles each (400,000 per 100 ms: 4 M cycles/s per thread),
 * cycle times log-normal around --median-ns with a sparse tail, a few hundred histogram buckets. The histograms
 * are drawn once at start-up (--templates of them, each with its own median, spread and cycle count) and every
 * interval takes one at random: drawing 400,000 cycle times per interval would cost the simulator more CPU than
 * the controller spends storing it.
 *
 * <p>Each run starts at a random phase within its first interval, so the agents' frames are spread over the
 * interval instead of arriving in lock step. Every agent has its own sender thread (as a real agent has), so a
 * connection the controller holds back stalls only its own agent. A frame is stamped with its intervals' end and
 * sent at that moment; how late the sender was (scheduling on a busy machine) is reported per run.
 *
 * <p>Compiled into the agent's package (BlockingWebSocket is package-private) and run against the agent jar:
 * <pre>
 *   javac -cp agent/target/qplab-agent.jar -d DIR bench/ingest/IntervalAgents.java
 *   QPLAB_AGENT_TOKEN=TOKEN java -cp agent/target/qplab-agent.jar:DIR org.qplab.agent.IntervalAgents \
 *       --controller ws://HOST:PORT/agent --agents 1000 [--id-prefix sim-] [--first 1] [--cycles 400000] [--median-ns 32000]
 *       [--templates 64] [--seed N] [--register-within 120]
 * </pre>
 * Agent ids are the prefix and a 4-digit number from --first. Every agent must be welcomed within --register-within
 * seconds of the start: else it prints {@code N of M agents registered in T s}, then for each agent that was not
 * {@code never registered: ID: LAST_ERROR (link from local port PORT)} (the last error it saw, or what it was waiting
 * for; the port, once connected, finds the link in the controller's log) and exits with status 3.
 * Output once all are registered, one line per run once the controller has recorded it:
 * {@code run RUN agent ID frames N acked N intervals N cycles N late_ms MS:COUNT,...} (how many frames went out how
 * many whole milliseconds after their intervals closed). Runs until killed.
 */
public final class IntervalAgents {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static final long HEARTBEAT_NS = TimeUnit.SECONDS.toNanos(5); // the real agent's default
    private static final AtomicLong linksLost = new AtomicLong();

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, System.getenv("QPLAB_AGENT_TOKEN"));
        List<Histogram> templates = Histogram.templates(o.templates, o.cycles, o.medianNs, new Random(o.seed));
        System.out.printf(Locale.ROOT, "histograms: %d templates of %d-%d buckets and %d-%d cycles%n", templates.size(),
                templates.stream().mapToInt(h -> h.buckets.length).min().orElse(0),
                templates.stream().mapToInt(h -> h.buckets.length).max().orElse(0),
                templates.stream().mapToLong(h -> h.cycles).min().orElse(0),
                templates.stream().mapToLong(h -> h.cycles).max().orElse(0));
        long started = System.nanoTime();
        ExecutorService connecting = Executors.newFixedThreadPool(32);
        List<SimulatedAgent> agents = new ArrayList<>();
        for (int i = 0; i < o.agents; i++) {
            SimulatedAgent agent = new SimulatedAgent(String.format(Locale.ROOT, "%s%04d", o.idPrefix, o.first + i), o, templates);
            agents.add(agent);
            connecting.submit(agent::connect);
        }
        connecting.shutdown();
        // every agent must be in by the deadline: one that is not would leave the bench waiting for it for good
        long deadline = started + TimeUnit.SECONDS.toNanos(o.registerWithinSeconds);
        long welcomed = 0;
        for (SimulatedAgent agent : agents) {
            welcomed += agent.welcomed.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS) ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "%d of %d agents registered in %.1f s%n", welcomed, o.agents,
                (System.nanoTime() - started) / 1e9);
        if (welcomed < o.agents) {
            for (SimulatedAgent agent : agents) {
                if (agent.welcomed.getCount() > 0) {
                    System.out.println("never registered: " + agent.id + ": " + agent.lastError());
                }
            }
            System.out.flush();
            System.exit(3);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.printf(Locale.ROOT,
                "exiting: %d links lost%n", linksLost.get())));
        new CountDownLatch(1).await(); // until killed
    }

    /** Command-line options. */
    private record Options(URI controller, String token, int agents, String idPrefix, int first, long cycles,
                           long medianNs, int templates, long seed, long registerWithinSeconds) {

        /** The token from the environment: ps shows argv to every local user, /proc/PID/environ only to this one. */
        static Options parse(String[] args, String token) {
            Map<String, String> v = new LinkedHashMap<>(Map.of("--id-prefix", "sim-", "--first", "1", "--cycles", "400000",
                    "--median-ns", "32000", "--templates", "64", "--seed", String.valueOf(System.nanoTime()),
                    "--register-within", "120"));
            for (int i = 0; i + 1 < args.length; i += 2) {
                v.put(args[i], args[i + 1]);
            }
            if (v.containsKey("--token")) {
                throw new IllegalArgumentException("--token is not taken: a token in argv is shown to every local user by ps; "
                        + "set QPLAB_AGENT_TOKEN");
            }
            if (args.length % 2 != 0 || !v.containsKey("--controller") || !v.containsKey("--agents")
                    || token == null || token.isBlank()) {
                throw new IllegalArgumentException("usage: QPLAB_AGENT_TOKEN=TOKEN IntervalAgents --controller ws://HOST:PORT/agent "
                        + "--agents N [--id-prefix P] [--first K] [--cycles C] [--median-ns NS] [--templates T] [--seed S] "
                        + "[--register-within SECONDS]");
            }
            return new Options(URI.create(v.get("--controller")), token, Integer.parseInt(v.get("--agents")),
                    v.get("--id-prefix"), Integer.parseInt(v.get("--first")), Long.parseLong(v.get("--cycles")),
                    Long.parseLong(v.get("--median-ns")), Integer.parseInt(v.get("--templates")), Long.parseLong(v.get("--seed")),
                    Long.parseLong(v.get("--register-within")));
        }
    }

    /**
     * One sparse cycle-time histogram, ascending buckets and their counts (all above 0), with the cycles they add
     * up to and the shortest and longest cycle time they allow.
     */
    private record Histogram(int[] buckets, long[] counts, long cycles, long minNs, long maxNs) {

        /** Log-normal bodies around medianNs (±10 %, sigma 0.15-0.25) with a sparse tail to 30 × the median. */
        static List<Histogram> templates(int n, long cycles, long medianNs, Random random) {
            List<Histogram> out = new ArrayList<>(n);
            for (int k = 0; k < n; k++) {
                double median = medianNs * (0.9 + 0.2 * random.nextDouble());
                double sigma = 0.15 + 0.1 * random.nextDouble();
                long total = Math.round(cycles * (0.95 + 0.1 * random.nextDouble()));
                out.add(draw(total, median, sigma, random));
            }
            return out;
        }

        static Histogram draw(long cycles, double median, double sigma, Random random) {
            TreeMap<Integer, Long> counts = new TreeMap<>();
            long tail = Math.max(1, cycles / 10_000); // 0.01 %: outliers 2-30 × the median, log-uniform
            for (long i = 0; i < tail; i++) {
                long ns = (long) (median * 2 * Math.pow(15, random.nextDouble()));
                counts.merge(CycleBuckets.of(ns), 1L, Long::sum);
            }
            long body = cycles - tail;
            int from = CycleBuckets.of((long) (median * Math.exp(-5 * sigma)));
            int to = CycleBuckets.of((long) (median * Math.exp(5 * sigma)));
            long placed = 0;
            int mode = from;
            for (int b = from; b <= to; b++) { // expected count per bucket, rounded at random to whole cycles
                double p = normalCdf(Math.log(CycleBuckets.highNs(b) / median) / sigma)
                        - normalCdf(Math.log(CycleBuckets.lowNs(b) / median) / sigma);
                double expected = body * p;
                long c = (long) expected + (random.nextDouble() < expected - Math.floor(expected) ? 1 : 0);
                if (c > 0) {
                    counts.merge(b, c, Long::sum);
                    placed += c;
                    if (counts.get(b) > counts.getOrDefault(mode, 0L)) {
                        mode = b;
                    }
                }
            }
            counts.merge(mode, body - placed, Long::sum); // the rounding's remainder, a few cycles either way
            int[] buckets = counts.keySet().stream().mapToInt(Integer::intValue).toArray();
            long[] values = counts.values().stream().mapToLong(Long::longValue).toArray();
            return new Histogram(buckets, values, cycles, CycleBuckets.lowNs(buckets[0]),
                    CycleBuckets.highNs(buckets[buckets.length - 1]) - 1);
        }

        /** The standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
        static double normalCdf(double z) {
            double x = Math.abs(z) / Math.sqrt(2);
            double t = 1 / (1 + 0.3275911 * x);
            double erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
                    * Math.exp(-x * x);
            return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
        }
    }

    /** What a run sent: frames, intervals, the cycles they count, and how late its frames went out (ms:count,...). */
    private record Sent(long frames, long intervals, long cycles, String lateMs) {}

    /** One simulated agent: its connection (reader thread) and its sender thread, which runs what it is assigned. */
    private static final class SimulatedAgent implements BlockingWebSocket.Listener {

        private final String id;
        private final Options options;
        private final List<Histogram> templates;
        private final CountDownLatch welcomed = new CountDownLatch(1);
        private final LinkedBlockingQueue<AgentMessage.AssignRun> assigned = new LinkedBlockingQueue<>();
        /** Per run not yet recorded by the controller: its frames acknowledged so far, and what was sent once it ended. */
        private final Map<Long, AtomicLong> acked = new ConcurrentHashMap<>();
        private final Map<Long, Sent> sent = new ConcurrentHashMap<>();
        private volatile BlockingWebSocket socket;
        /** What went wrong last on this agent's way in (null: nothing yet), for the report when it never registered. */
        private volatile String lastError;
        /** How the link ended (null: open or never opened): it, not the sends that failed after it, is the cause. */
        private volatile String closedWith;
        /** The link's local port (0: not connected): the controller's log names a link refused before its hello by it. */
        private volatile int localPort;
        /** How far it got: for an agent that saw no error, what it was waiting for. */
        private volatile String stage = "waiting to connect (all connecting threads busy)";
        private volatile long cancelled = -1;
        private long nextHeartbeat;

        SimulatedAgent(String id, Options options, List<Histogram> templates) {
            this.id = id;
            this.options = options;
            this.templates = templates;
        }

        void connect() {
            try {
                stage = "connecting (WebSocket upgrade)";
                socket = BlockingWebSocket.connect(options.controller(), CONNECT_TIMEOUT, this);
                localPort = socket.localAddress().getPort();
                Map<String, Object> facts = Map.of("hostname", id, "simulated", "bench/ingest/IntervalAgents.java",
                        "cpus", Runtime.getRuntime().availableProcessors());
                send(new AgentMessage.Hello(id, options.token(), facts, null, List.of(), null));
                stage = "no error: connected and sent its hello, no welcome came";
                socket.startReading("reader-" + id);
                Thread sender = new Thread(this::serve, "sender-" + id);
                sender.setDaemon(true);
                sender.start();
            } catch (IOException e) {
                lastError = "cannot connect: " + e;
                System.err.println(id + ": " + lastError);
            }
        }

        String lastError() {
            String error = closedWith != null ? closedWith : lastError != null ? lastError : stage;
            return localPort == 0 ? error : error + " (link from local port " + localPort + ")";
        }

        /** The sender thread: heartbeats while idle, and each assigned run in turn. */
        private void serve() {
            nextHeartbeat = System.nanoTime() + HEARTBEAT_NS;
            try {
                while (true) {
                    AgentMessage.AssignRun run = assigned.poll(1, TimeUnit.SECONDS);
                    if (run != null) {
                        run(run);
                    }
                    heartbeatIfDue(null);
                }
            } catch (IOException e) {
                lastError = "sending failed: " + e;
                System.err.println(id + ": " + lastError);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Streams one run's intervals in real time and reports its end. */
        private void run(AgentMessage.AssignRun assignment) throws IOException {
            long runId = assignment.runId();
            Map<String, Object> spec = assignment.spec();
            int threads = intOf(spec, "threads", 1);
            long intervalNs = TimeUnit.MILLISECONDS.toNanos(intOf(spec, "interval_ms", 100));
            long intervals = Math.max(1, (TimeUnit.MILLISECONDS.toNanos(intOf(spec, "duration_ms", 1000)) + intervalNs - 1) / intervalNs);
            long msgSize = intOf(spec, "msg_size", 64);
            long qps = intOf(spec, "qps_per_thread", 1);
            acked.put(runId, new AtomicLong());
            send(new AgentMessage.RunStarted(runId));
            // t0 somewhere in the coming interval: the agents' frames spread over it instead of arriving together
            long t0 = System.nanoTime() + ThreadLocalRandom.current().nextLong(intervalNs);
            long t0RealtimeNs = realtimeNs() + (t0 - System.nanoTime());
            long[] used = new long[templates.size()]; // how often each histogram was sent: the run's histogram
            long[] threadCycles = new long[threads];
            TreeMap<Long, Long> lateMs = new TreeMap<>();
            long seq = 0;
            for (long index = 0; index < intervals && cancelled != runId; index++) {
                long closes = t0 + (index + 1) * intervalNs;
                LockSupport.parkNanos(closes - System.nanoTime());
                while (System.nanoTime() < closes) { // parkNanos may return early
                    LockSupport.parkNanos(closes - System.nanoTime());
                }
                List<Interval> batch = new ArrayList<>(threads);
                for (int t = 0; t < threads; t++) {
                    int k = ThreadLocalRandom.current().nextInt(templates.size());
                    used[k]++;
                    threadCycles[t] += templates.get(k).cycles;
                    batch.add(interval(t, index, intervalNs, templates.get(k), msgSize * qps, qps));
                }
                lateMs.merge((System.nanoTime() - closes) / 1_000_000, 1L, Long::sum);
                socket.sendBinary(new IntervalFrame(runId, seq++, batch).encode());
                heartbeatIfDue(runId);
            }
            Map<String, Object> summary = summary(spec, threads, threadCycles, used, seq, intervalNs, t0RealtimeNs,
                    msgSize, qps, cancelled == runId);
            StringBuilder late = new StringBuilder();
            lateMs.forEach((ms, n) -> late.append(late.length() == 0 ? "" : ",").append(ms).append(':').append(n));
            sent.put(runId, new Sent(seq, seq * threads, (long) summary.get("cycles"), late.toString()));
            send(new AgentMessage.RunFinished(runId, summary, seq));
        }

        /** Interval index of thread t: a template's counts, its last cycle ending just before the interval closes. */
        private static Interval interval(int thread, long index, long intervalNs, Histogram h, long bytesPerCycle,
                                         long messagesPerCycle) {
            long lastEnd = (index + 1) * intervalNs - 1 - ThreadLocalRandom.current().nextLong(1000);
            long firstStart = Math.max(0, index * intervalNs - h.minNs());
            return new Interval(thread, index, 1, h.cycles(), h.cycles() * messagesPerCycle, h.cycles() * bytesPerCycle, 0,
                    h.minNs(), h.maxNs(), firstStart, lastEnd, h.buckets(), h.counts());
        }

        /** The engine's summary keys that the controller reads, from what was sent. */
        private Map<String, Object> summary(Map<String, Object> spec, int threads, long[] threadCycles, long[] used,
                                            long frames, long intervalNs, long t0RealtimeNs, long msgSize, long qps,
                                            boolean stopped) {
            long[] merged = new long[CycleBuckets.COUNT];
            long min = Long.MAX_VALUE;
            long max = 0;
            for (int k = 0; k < used.length; k++) {
                if (used[k] == 0) {
                    continue;
                }
                Histogram h = templates.get(k);
                for (int i = 0; i < h.buckets().length; i++) {
                    merged[h.buckets()[i]] += used[k] * h.counts()[i];
                }
                min = Math.min(min, h.minNs());
                max = Math.max(max, h.maxNs());
            }
            int nonEmpty = 0;
            for (long c : merged) {
                nonEmpty += c > 0 ? 1 : 0;
            }
            int[] buckets = new int[nonEmpty];
            long[] counts = new long[nonEmpty];
            long cycles = 0;
            for (int b = 0, i = 0; b < merged.length; b++) {
                if (merged[b] > 0) {
                    buckets[i] = b;
                    counts[i++] = merged[b];
                    cycles += merged[b];
                }
            }
            double seconds = Math.max(1, frames) * intervalNs / 1e9;
            List<Map<String, Object>> perThread = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                perThread.add(Map.of("thread", t, "cycles", threadCycles[t], "messages", threadCycles[t] * qps,
                        "bytes", threadCycles[t] * msgSize * qps, "errors", 0, "intervals", frames, "intervals_late", 0));
            }
            Map<String, Object> cycleNs = new LinkedHashMap<>();
            cycleNs.put("min", min == Long.MAX_VALUE ? 0 : min);
            cycleNs.put("median", CycleBuckets.percentile(buckets, counts, cycles, 0.5, min, max));
            cycleNs.put("p99", CycleBuckets.percentile(buckets, counts, cycles, 0.99, min, max));
            cycleNs.put("p999", CycleBuckets.percentile(buckets, counts, cycles, 0.999, min, max));
            cycleNs.put("max", max);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("provider", spec.getOrDefault("provider", "tcp"));
            s.put("role", "loopback");
            s.put("op", "send");
            s.put("threads", threads);
            s.put("qps_per_thread", qps);
            s.put("msg_size", msgSize);
            s.put("cycles", cycles);
            s.put("messages", cycles * qps);
            s.put("bytes", cycles * qps * msgSize);
            s.put("errors", 0);
            s.put("stopped", stopped);
            s.put("interval_ms", intervalNs / 1_000_000);
            s.put("intervals", frames * threads);
            s.put("intervals_late", 0);
            s.put("traced", 0);
            s.put("dropped", 0);
            s.put("duration_ns", (long) (seconds * 1e9));
            s.put("bw_avg_bps", cycles * qps * msgSize / seconds);
            s.put("msg_rate", cycles * qps / seconds);
            s.put("cycle_ns", cycleNs);
            s.put("per_thread", perThread);
            s.put("clock", Map.of("source", "CLOCK_MONOTONIC_RAW", "t0_realtime_ns", t0RealtimeNs));
            s.put("simulated", "bench/ingest/IntervalAgents.java");
            return s;
        }

        private void heartbeatIfDue(Long runId) throws IOException {
            if (System.nanoTime() >= nextHeartbeat) {
                nextHeartbeat = System.nanoTime() + HEARTBEAT_NS;
                send(new AgentMessage.Heartbeat(runId, 0, 0L));
            }
        }

        private void send(AgentMessage message) throws IOException {
            socket.sendText(JSON.writeValueAsBytes(message));
        }

        @Override
        public void onText(BlockingWebSocket ws, String text) {
            AgentMessage message = JSON.readValue(text, AgentMessage.class);
            if (message instanceof AgentMessage.Welcome) {
                welcomed.countDown();
            } else if (message instanceof AgentMessage.AssignRun run) {
                assigned.add(run);
            } else if (message instanceof AgentMessage.BatchAck ack) {
                AtomicLong n = acked.get(ack.runId());
                if (n != null) {
                    n.incrementAndGet();
                }
            } else if (message instanceof AgentMessage.RunRecorded recorded) {
                AtomicLong n = acked.remove(recorded.runId());
                Sent s = sent.remove(recorded.runId());
                if (s != null) { // the controller acknowledges every frame before it records the run's end
                    System.out.printf(Locale.ROOT, "run %d agent %s frames %d acked %d intervals %d cycles %d late_ms %s%n",
                            recorded.runId(), id, s.frames(), n == null ? 0 : n.get(), s.intervals(), s.cycles(), s.lateMs());
                }
            } else if (message instanceof AgentMessage.CancelRun cancel) {
                cancelled = cancel.runId();
            }
        }

        @Override
        public void onPing(BlockingWebSocket ws) {
            // BlockingWebSocket answers it
        }

        @Override
        public void onClosed(BlockingWebSocket ws, int code, String reason, Throwable error) {
            linksLost.incrementAndGet();
            closedWith = "link closed (" + code + " " + reason + ")" + (error == null ? "" : ": " + error);
            System.err.println(id + ": " + closedWith);
        }

        private static int intOf(Map<String, Object> spec, String key, int otherwise) {
            return spec.get(key) instanceof Number n ? n.intValue() : otherwise;
        }

        private static long realtimeNs() {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }
    }
}
