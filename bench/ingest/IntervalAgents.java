package org.qplab.agent;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.CycleBuckets;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.qplab.protocol.LinkClose;
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
 * <p>For bench/controllers, an agent also behaves as the real agent does towards several controllers and in pair
 * runs: --controller takes a list of URLs (comma-separated); a link that drops is tried again on the same controller,
 * one that cannot be made moves to the next of the list (round it), back-off 500 ms doubling to 10 s, reset on
 * success (agent ControllerLink). Every frame and run end stays in its outbox until acknowledged (BatchAck,
 * RunRecorded) and is replayed, in order, on the next link; the token a controller issues it when it enrols with
 * the shared secret (Welcome.token) is the one its later hellos present; its hello names its current run, its prepared pair run
 * and every run it still holds (currentRun, preparedRun, knownRuns), so the controller's recovery applies. Pair runs
 * (agent RunExecutor): PrepareRun (the spec's role client or server) is answered Prepared with a made-up endpoint,
 * ConnectRun Connected, StartRun RunStarted; the client then streams as a loopback run does and ends with RunFinished
 * (its summary's role client), the server sends no frames and ends RunFinished with a small summary when the run's
 * duration_ms has passed (or at once when cancelled). A step for a run that is not prepared fails it (retryable), and
 * CancelRun stops a running side or drops a prepared one (RunFailed "cancelled before it started"). When a link that
 * was welcomed drops, the agent prints, once welcomed again, {@code failover agent ID ms MS from URL to URL replaying N}
 * ({@code relinked} instead of failover when it is the same controller): the time from the drop to the welcome.
 *
 * <p>Compiled into the agent's package (BlockingWebSocket is package-private) and run against the agent jar:
 * <pre>
 *   javac -cp agent/target/qplab-agent.jar -d DIR bench/ingest/IntervalAgents.java
 *   QPLAB_AGENT_TOKEN=TOKEN java -cp agent/target/qplab-agent.jar:DIR org.qplab.agent.IntervalAgents \
 *       --controller ws://HOST:PORT/agent[,ws://HOST2:PORT2/agent...] --agents 1000 [--id-prefix sim-] [--first 1] [--cycles 400000] [--median-ns 32000]
 *       [--templates 64] [--seed N] [--register-within 120] [--frame-layout 3]
 * </pre>
 * --frame-layout 2 sends frames of the layout the previous release's agents send (histograms as pair lists, which
 * the controller encodes into the stored format itself) and says so in the hello; 3, the default, the current
 * agent's (histograms as the database stores them): old and new compared with the same simulator, and layout 2 is
 * what a controller before layout 3 reads.
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
    /** A link after the first, to a controller of the list: the real agent's connect timeout. */
    private static final Duration RELINK_TIMEOUT = Duration.ofSeconds(10);
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
    private record Options(List<URI> controllers, String token, int agents, String idPrefix, int first, long cycles,
                           long medianNs, int templates, long seed, long registerWithinSeconds, int frameLayout) {

        /** The token from the environment: ps shows argv to every local user, /proc/PID/environ only to this one. */
        static Options parse(String[] args, String token) {
            Map<String, String> v = new LinkedHashMap<>(Map.of("--id-prefix", "sim-", "--first", "1", "--cycles", "400000",
                    "--median-ns", "32000", "--templates", "64", "--seed", String.valueOf(System.nanoTime()),
                    "--register-within", "120", "--frame-layout", String.valueOf(IntervalFrame.VERSION)));
            for (int i = 0; i + 1 < args.length; i += 2) {
                v.put(args[i], args[i + 1]);
            }
            if (v.containsKey("--token")) {
                throw new IllegalArgumentException("--token is not taken: a token in argv is shown to every local user by ps; "
                        + "set QPLAB_AGENT_TOKEN");
            }
            if (args.length % 2 != 0 || !v.containsKey("--controller") || !v.containsKey("--agents")
                    || token == null || token.isBlank()) {
                throw new IllegalArgumentException("usage: QPLAB_AGENT_TOKEN=TOKEN IntervalAgents --controller ws://HOST:PORT/agent[,ws://...] "
                        + "--agents N [--id-prefix P] [--first K] [--cycles C] [--median-ns NS] [--templates T] [--seed S] "
                        + "[--register-within SECONDS] [--frame-layout 2|3]");
            }
            int frameLayout = Integer.parseInt(v.get("--frame-layout"));
            if (!IntervalFrame.reads(frameLayout)) {
                throw new IllegalArgumentException("--frame-layout " + frameLayout + ": 2 or 3");
            }
            List<URI> controllers = new ArrayList<>();
            for (String url : v.get("--controller").split(",")) {
                controllers.add(URI.create(url.strip()));
            }
            return new Options(List.copyOf(controllers), token, Integer.parseInt(v.get("--agents")),
                    v.get("--id-prefix"), Integer.parseInt(v.get("--first")), Long.parseLong(v.get("--cycles")),
                    Long.parseLong(v.get("--median-ns")), Integer.parseInt(v.get("--templates")), Long.parseLong(v.get("--seed")),
                    Long.parseLong(v.get("--register-within")), frameLayout);
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

    /**
     * One simulated agent: its links (one reader thread each), its sender thread, which runs what it is assigned and
     * sends everything, and, while it has no link, a relink thread. Frames and run ends stay in its outbox until the
     * controller acknowledges them (BatchAck, RunRecorded) and are replayed, in the order they were made, on the next
     * link, as the real agent's ControllerLink and Outbox do (in memory only: no spool).
     */
    private static final class SimulatedAgent implements BlockingWebSocket.Listener {

        private static final int WELCOMED = 0;
        private static final Pattern RETRY_IN = Pattern.compile("try again in (\\d+) s");

        /** An outbox entry: a frame (its encoding) or a run end, with its (run, seq); seq RUN_END for the end. */
        private record Item(long runId, long seq, Object payload) {}

        private static final long RUN_END = Long.MAX_VALUE;

        private final String id;
        private final Options options;
        private final List<Histogram> templates;
        private final CountDownLatch welcomed = new CountDownLatch(1);
        /** What the controller asked for, in order: AssignRun, PrepareRun, ConnectRun, StartRun, CancelRun. */
        private final LinkedBlockingQueue<AgentMessage> tasks = new LinkedBlockingQueue<>();
        /** Runs the controller cancelled: a running one stops, a prepared one is dropped, a later step fails. */
        private final Set<Long> cancelled = ConcurrentHashMap.newKeySet();
        /** Unacknowledged frames and run ends by the order they were made, and that order by "run:seq". */
        private final ConcurrentSkipListMap<Long, Item> outbox = new ConcurrentSkipListMap<>();
        private final Map<String, Long> outboxOrder = new ConcurrentHashMap<>();
        private long made; // sender thread only
        /** Per run not yet recorded by the controller: its frames acknowledged so far, and what was sent once it ended. */
        private final Map<Long, AtomicLong> acked = new ConcurrentHashMap<>();
        private final Map<Long, Sent> sent = new ConcurrentHashMap<>();
        /** The link the controller welcomed this agent on (null: none now). */
        private volatile BlockingWebSocket live;
        /** The link whose hello awaits its answer, and the answer: WELCOMED or the close code (-1: broken). */
        private volatile BlockingWebSocket pending;
        private volatile CompletableFuture<Integer> answer = new CompletableFuture<>();
        /** Sender thread only: the link the outbox was last replayed on (a new live link gets the outbox first). */
        private BlockingWebSocket active;
        /** Which of the controllers this agent tries next, or is linked to. */
        private volatile int current;
        private final AtomicBoolean relinking = new AtomicBoolean();
        /** When the welcomed link dropped (System.nanoTime; 0: it has not), and to which controller it was. */
        private volatile long droppedAt;
        private volatile int droppedFrom;
        /** The run its engine would be running (-1: none), and the pair run prepared but not started (-1: none). */
        private volatile long currentRun = -1;
        private volatile long preparedRun = -1;
        private Map<String, Object> preparedSpec; // sender thread only
        /** What went wrong last on this agent's way in (null: nothing yet), for the report when it never registered. */
        private volatile String lastError;
        /** How the link ended (null: open or never opened): it, not the sends that failed after it, is the cause. */
        private volatile String closedWith;
        /** The link's local port (0: not connected): the controller's log names a link refused before its hello by it. */
        private volatile int localPort;
        /** How far it got: for an agent that saw no error, what it was waiting for. */
        private volatile String stage = "waiting to connect (all connecting threads busy)";
        private long nextHeartbeat;
        /** The token its hello presents: the shared one until a controller issues it its own (Welcome.token). */
        private volatile String token;

        SimulatedAgent(String id, Options options, List<Histogram> templates) {
            this.id = id;
            this.options = options;
            this.templates = templates;
            this.token = options.token();
        }

        /**
         * The first link, on a connecting thread, which does not wait for the welcome (many agents say hello at once);
         * if the link cannot be made or ends before its welcome, the relink thread carries on. Starts the sender.
         */
        void connect() {
            Thread sender = new Thread(this::serve, "sender-" + id);
            sender.setDaemon(true);
            sender.start();
            int at = current;
            try {
                link(at, CONNECT_TIMEOUT, false);
            } catch (IOException e) {
                lastError = "cannot connect to " + options.controllers().get(at) + ": " + e;
                System.err.println(id + ": " + lastError);
                current = (at + 1) % options.controllers().size();
                startRelink(-1);
            }
        }

        /**
         * Connects to controller number at and says hello; with await, returns WELCOMED or the close code of a link
         * that ended before its welcome (-1: broken, or no welcome within timeout); without, returns -1 at once.
         */
        private int link(int at, Duration timeout, boolean await) throws IOException {
            stage = "connecting (WebSocket upgrade)";
            CompletableFuture<Integer> answered = new CompletableFuture<>();
            answer = answered;
            BlockingWebSocket ws = BlockingWebSocket.connect(options.controllers().get(at), timeout, this);
            pending = ws;
            localPort = ws.localAddress().getPort();
            Map<String, Object> facts = Map.of("hostname", id, "simulated", "bench/ingest/IntervalAgents.java",
                    "cpus", Runtime.getRuntime().availableProcessors());
            long run = currentRun;
            long prepared = preparedRun;
            TreeSet<Long> known = new TreeSet<>();
            outbox.values().forEach(item -> known.add(item.runId()));
            if (run >= 0) {
                known.add(run);
            }
            if (prepared >= 0) {
                known.add(prepared);
            }
            try {
                ws.sendText(JSON.writeValueAsBytes(new AgentMessage.Hello(id, token, facts,
                        run < 0 ? null : run, List.copyOf(known), prepared < 0 ? null : prepared, options.frameLayout())));
            } catch (IOException e) { // connected, then broken: the same controller again, as the real agent
                lastError = "sending its hello failed: " + e;
                ws.abort();
                return -1;
            }
            stage = "no error: connected and sent its hello, no welcome came";
            ws.startReading("reader-" + id);
            if (!await) {
                return -1;
            }
            try {
                return answered.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                ws.abort();
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ws.abort();
                return -1;
            }
        }

        /** After a link ended (or never opened): a thread that links again, unless one is at it already. */
        private void startRelink(int outcome) {
            if (relinking.compareAndSet(false, true)) {
                Thread t = new Thread(() -> {
                    try {
                        relink(outcome);
                    } finally {
                        relinking.set(false);
                    }
                }, "relink-" + id);
                t.setDaemon(true);
                t.start();
            }
        }

        /**
         * Links again as the real agent's ControllerLink.runForever does: back-off from 500 ms, doubling to 10 s; a link
         * that ended is tried again on the same controller, one that cannot be reached is left for the next of the list
         * (round it); a refusal waits (ID_LIVE: the back-off, THROTTLED: the seconds it names) or, for good, stops.
         */
        private void relink(int ended) {
            long backoffMs = 500;
            int outcome = ended;
            while (true) {
                LinkClose refusal = LinkClose.of(outcome);
                if (refusal == LinkClose.THROTTLED) {
                    Matcher retry = RETRY_IN.matcher(closedWith == null ? "" : closedWith);
                    sleep((retry.find() ? Long.parseLong(retry.group(1)) : 30) * 1000 + 250);
                } else if (refusal != null && refusal != LinkClose.ID_LIVE) {
                    lastError = "refused for good: " + closedWith;
                    System.err.println(id + ": " + lastError);
                    return;
                } else {
                    sleep(backoffMs);
                    backoffMs = Math.min(backoffMs * 2, 10_000);
                }
                int at = current;
                try {
                    outcome = link(at, RELINK_TIMEOUT, true);
                    if (outcome == WELCOMED) {
                        return;
                    }
                    if (LinkClose.of(outcome) == null) {
                        backoffMs = 500; // it ended without a refusal: the same controller again, as the real agent
                    }
                } catch (IOException e) {
                    current = (at + 1) % options.controllers().size();
                    lastError = "cannot connect to " + options.controllers().get(at) + ": " + e;
                    outcome = -1;
                }
            }
        }

        String lastError() {
            String error = closedWith != null ? closedWith : lastError != null ? lastError : stage;
            return localPort == 0 ? error : error + " (link from local port " + localPort + ")";
        }

        /** The sender thread: each task in turn, the outbox replayed on a new link, heartbeats while idle. */
        private void serve() {
            nextHeartbeat = System.nanoTime() + HEARTBEAT_NS;
            try {
                while (true) {
                    AgentMessage task = tasks.poll(200, TimeUnit.MILLISECONDS);
                    if (task != null) {
                        handle(task);
                    }
                    flush();
                    heartbeatIfDue(null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                lastError = "the sender failed: " + e;
                System.err.println(id + ": " + lastError);
                e.printStackTrace();
            }
        }

        /** One task, as the real agent's RunExecutor handles it (a loopback run, or one side of a pair step by step). */
        private void handle(AgentMessage task) {
            if (task instanceof AgentMessage.AssignRun assign) {
                if (!cancelledBeforeStart(assign.runId())) {
                    preparedRun = -1;
                    preparedSpec = null;
                    currentRun = assign.runId();
                    try {
                        stream(assign.runId(), assign.spec(), "loopback");
                    } finally {
                        currentRun = -1;
                    }
                }
            } else if (task instanceof AgentMessage.PrepareRun prepare) {
                if (!cancelledBeforeStart(prepare.runId())) {
                    preparedSpec = prepare.spec();
                    preparedRun = prepare.runId();
                    sendNow(new AgentMessage.Prepared(prepare.runId(), "simulated:" + id + ":" + prepare.runId()));
                }
            } else if (task instanceof AgentMessage.ConnectRun connect) {
                if (isPrepared(connect.runId())) {
                    sendNow(new AgentMessage.Connected(connect.runId()));
                }
            } else if (task instanceof AgentMessage.StartRun start) {
                if (isPrepared(start.runId())) {
                    Map<String, Object> spec = preparedSpec;
                    currentRun = start.runId(); // before it stops being prepared: a hello in between still names it
                    preparedRun = -1;
                    preparedSpec = null;
                    try {
                        if ("server".equals(spec.get("role"))) {
                            serverSide(start.runId(), spec);
                        } else {
                            stream(start.runId(), spec, "client");
                        }
                    } finally {
                        currentRun = -1;
                    }
                }
            } else if (task instanceof AgentMessage.CancelRun cancel) {
                if (preparedRun == cancel.runId() && cancelled.remove(cancel.runId())) {
                    preparedRun = -1;
                    preparedSpec = null;
                    end(new AgentMessage.RunFailed(cancel.runId(), "cancelled before it started", 0, false));
                }
            }
        }

        private boolean cancelledBeforeStart(long runId) {
            if (cancelled.remove(runId)) {
                end(new AgentMessage.RunFailed(runId, "cancelled before it started", 0, false));
                return true;
            }
            return false;
        }

        /** Whether runId is the prepared run; if not (and not cancelled), fails it as the real agent does. */
        private boolean isPrepared(long runId) {
            if (preparedRun == runId && preparedSpec != null) {
                return true;
            }
            if (!cancelled.remove(runId)) {
                end(new AgentMessage.RunFailed(runId, "run " + runId + " is not prepared on this agent "
                        + "(it was restarted, or the steps came out of order)", 0, true));
            }
            return false;
        }

        /**
         * A pair's server side: no frames (the run's intervals are the client's); it ends when the client's run time
         * has passed (its duration_ms, and a little for the client's last frame), or when cancelled, with a small summary.
         */
        private void serverSide(long runId, Map<String, Object> spec) {
            long started = System.nanoTime();
            sendNow(new AgentMessage.RunStarted(runId));
            long ends = started + TimeUnit.MILLISECONDS.toNanos(intOf(spec, "duration_ms", 1000) + 200L);
            while (System.nanoTime() < ends && !cancelled.contains(runId)) {
                LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(100), ends - System.nanoTime()));
                flush();
                heartbeatIfDue(runId);
            }
            boolean stopped = cancelled.remove(runId);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("provider", spec.getOrDefault("provider", "tcp"));
            s.put("role", "server");
            s.put("threads", intOf(spec, "threads", 1));
            s.put("msg_size", intOf(spec, "msg_size", 64));
            s.put("errors", 0);
            s.put("stopped", stopped);
            s.put("duration_ns", System.nanoTime() - started);
            s.put("simulated", "bench/ingest/IntervalAgents.java");
            end(new AgentMessage.RunFinished(runId, s, 0));
        }

        /** Streams one run's intervals in real time (a loopback run, or a pair's client side) and reports its end. */
        private void stream(long runId, Map<String, Object> spec, String role) {
            int threads = intOf(spec, "threads", 1);
            long intervalNs = TimeUnit.MILLISECONDS.toNanos(intOf(spec, "interval_ms", 100));
            long intervals = Math.max(1, (TimeUnit.MILLISECONDS.toNanos(intOf(spec, "duration_ms", 1000)) + intervalNs - 1) / intervalNs);
            long msgSize = intOf(spec, "msg_size", 64);
            long qps = intOf(spec, "qps_per_thread", 1);
            acked.put(runId, new AtomicLong());
            sendNow(new AgentMessage.RunStarted(runId));
            // t0 somewhere in the coming interval: the agents' frames spread over it instead of arriving together
            long t0 = System.nanoTime() + ThreadLocalRandom.current().nextLong(intervalNs);
            long t0RealtimeNs = realtimeNs() + (t0 - System.nanoTime());
            long[] used = new long[templates.size()]; // how often each histogram was sent: the run's histogram
            long[] threadCycles = new long[threads];
            TreeMap<Long, Long> lateMs = new TreeMap<>();
            long seq = 0;
            for (long index = 0; index < intervals && !cancelled.contains(runId); index++) {
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
                keep(runId, seq, new IntervalFrame(runId, seq, batch).encode(options.frameLayout()));
                seq++;
                heartbeatIfDue(runId);
            }
            boolean stopped = cancelled.remove(runId);
            Map<String, Object> summary = summary(spec, role, threads, threadCycles, used, seq, intervalNs, t0RealtimeNs,
                    msgSize, qps, stopped);
            StringBuilder late = new StringBuilder();
            lateMs.forEach((ms, n) -> late.append(late.length() == 0 ? "" : ",").append(ms).append(':').append(n));
            sent.put(runId, new Sent(seq, seq * threads, (long) summary.get("cycles"), late.toString()));
            end(new AgentMessage.RunFinished(runId, summary, seq));
        }

        /** A run's end: kept until RunRecorded, after the run's frames. */
        private void end(AgentMessage.RunEnd end) {
            keep(end.runId(), RUN_END, end);
        }

        /** Into the outbox, then out on the link (after the outbox's replay, if the link is new). */
        private void keep(long runId, long seq, Object payload) {
            long order = made++;
            outboxOrder.put(runId + ":" + seq, order);
            outbox.put(order, new Item(runId, seq, payload));
            if (!flush()) {
                BlockingWebSocket ws = active;
                if (ws != null && live == ws) {
                    sendOn(ws, payload);
                }
            }
        }

        /** Replays the whole outbox, in order, on a link welcomed since the last replay; whether it did. */
        private boolean flush() {
            BlockingWebSocket ws = live;
            if (ws == null || ws == active) {
                return false;
            }
            active = ws;
            for (Item item : outbox.values()) {
                if (!sendOn(ws, item.payload())) {
                    break;
                }
            }
            return true;
        }

        /** RunStarted, Prepared, Connected, heartbeats: sent if linked, not kept (as the real agent's sendNow). */
        private void sendNow(AgentMessage message) {
            flush();
            BlockingWebSocket ws = active;
            if (ws != null && live == ws) {
                sendOn(ws, message);
            }
        }

        /** Sends on a link; a send that fails aborts it (its reader then reports it closed, and a relink starts). */
        private boolean sendOn(BlockingWebSocket ws, Object payload) {
            try {
                if (payload instanceof ByteBuffer frame) {
                    ws.sendBinary(frame);
                } else {
                    ws.sendText(JSON.writeValueAsBytes(payload));
                }
                return true;
            } catch (IOException e) {
                lastError = "sending failed: " + e;
                ws.abort();
                return false;
            }
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
        private Map<String, Object> summary(Map<String, Object> spec, String role, int threads, long[] threadCycles, long[] used,
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
            s.put("role", role);
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

        private void heartbeatIfDue(Long runId) {
            if (System.nanoTime() >= nextHeartbeat) {
                nextHeartbeat = System.nanoTime() + HEARTBEAT_NS;
                sendNow(new AgentMessage.Heartbeat(runId, outbox.size(), 0L));
            }
        }

        @Override
        public void onText(BlockingWebSocket ws, String text) {
            AgentMessage message = JSON.readValue(text, AgentMessage.class);
            if (message instanceof AgentMessage.Welcome welcome) {
                if (ws != pending) {
                    return;
                }
                if (welcome.token() != null) { // enrolled with the shared secret: its own token from now on
                    token = welcome.token();
                }
                long dropped = droppedAt;
                live = ws;
                answer.complete(WELCOMED);
                welcomed.countDown();
                if (dropped != 0) { // the time from the link dropping to this agent's registration on a controller
                    droppedAt = 0;
                    System.out.printf(Locale.ROOT, "%s agent %s ms %d from %s to %s replaying %d%n",
                            droppedFrom == current ? "relinked" : "failover", id, (System.nanoTime() - dropped) / 1_000_000,
                            options.controllers().get(droppedFrom), options.controllers().get(current), outbox.size());
                }
            } else if (message instanceof AgentMessage.BatchAck ack) {
                if (unkeep(ack.runId(), ack.seq())) {
                    AtomicLong n = acked.get(ack.runId());
                    if (n != null) {
                        n.incrementAndGet();
                    }
                }
            } else if (message instanceof AgentMessage.RunRecorded recorded) {
                unkeep(recorded.runId(), RUN_END);
                AtomicLong n = acked.remove(recorded.runId());
                Sent s = sent.remove(recorded.runId());
                if (s != null) { // the controller acknowledges every frame before it records the run's end
                    System.out.printf(Locale.ROOT, "run %d agent %s frames %d acked %d intervals %d cycles %d late_ms %s%n",
                            recorded.runId(), id, s.frames(), n == null ? 0 : n.get(), s.intervals(), s.cycles(), s.lateMs());
                }
            } else if (message instanceof AgentMessage.CancelRun cancel) {
                cancelled.add(cancel.runId());
                tasks.add(cancel); // a prepared run is dropped by the sender
            } else if (message instanceof AgentMessage.RunMessage) {
                tasks.add(message); // AssignRun, PrepareRun, ConnectRun, StartRun
            }
        }

        /** Forgets an acknowledged outbox entry; whether it was there. */
        private boolean unkeep(long runId, long seq) {
            Long order = outboxOrder.remove(runId + ":" + seq);
            return order != null && outbox.remove(order) != null;
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
            if (ws == live) {
                live = null;
                droppedFrom = current;
                droppedAt = System.nanoTime();
                startRelink(code);
            } else if (ws == pending) {
                answer.complete(code); // to the relink thread, which waits for it
                if (!relinking.get()) {
                    startRelink(code); // the first link, which no relink thread waits for, ended before its welcome
                }
            }
        }

        private static int intOf(Map<String, Object> spec, String key, int otherwise) {
            return spec.get(key) instanceof Number n ? n.intValue() : otherwise;
        }

        private static long realtimeNs() {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
