package org.qplab.agent;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLSocketFactory;
import org.qplab.agent.log.Log;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.protocol.IntervalFrame;
import tools.jackson.databind.ObjectMapper;

/**
 * The agent's WebSocket to the controller. Frames and run ends go into the {@link Outbox}
 * (memory, then the on-disk spool), in the order they were made (a run's end after its frames), and stay
 * there until the controller acknowledges them. A sender thread streams the outbox in order; after a reconnect it
 * starts again from the top, so a broken link loses nothing (the controller's ingest skips what it
 * already has).
 */
final class ControllerLink implements BlockingWebSocket.Listener {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern RETRY_IN = Pattern.compile("try again in (\\d+) s");

    /** How a link ended: its close code and reason (-1: it broke, or never opened). */
    private record Ended(int code, String reason) {
        static final Ended BROKEN = new Ended(-1, "");
    }

    private final AgentConfig config;
    /** For wss://: the JDK's trust plus --ca-file; null: the JDK's default. */
    private final SSLSocketFactory tls;
    private final ObjectMapper json;
    private final Map<String, Object> facts;
    private final Outbox outbox;
    private final AgentCredentials credentials;
    /** The controller installation that assigned each run still in the outbox or on the engine. */
    private final Map<Long, String> runOwners = new ConcurrentHashMap<>();
    private volatile String installation = Outbox.UNKNOWN;
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "qplab-heartbeat"));
    /** Its own thread: a send blocked on a dead link holds the heartbeat thread, not this one. */
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "qplab-link-watch"));
    /** When anything last arrived from the controller (the controller pings every second while it sends nothing else). */
    private volatile long lastHeard = System.nanoTime();
    private final Object sendLock = new Object();
    private final Object outboxSignal = new Object();
    private Consumer<AgentMessage> handler = m -> { };
    private LongSupplier currentRun = () -> -1;
    private LongSupplier preparedRun = () -> -1;

    private volatile BlockingWebSocket socket;
    private volatile boolean registered;
    private final java.util.concurrent.atomic.AtomicLong runsEnded = new java.util.concurrent.atomic.AtomicLong();
    private volatile CompletableFuture<Ended> closed = new CompletableFuture<>();
    /** Guarded by outboxSignal: the last outbox entry sent on this connection, and which connection. */
    private Long lastSent;
    private long connection;

    ControllerLink(AgentConfig config, SSLSocketFactory tls, ObjectMapper json, Map<String, Object> facts, Outbox outbox,
                   AgentCredentials credentials) {
        this.config = config;
        this.credentials = credentials;
        this.tls = tls;
        this.json = json;
        this.facts = facts;
        this.outbox = outbox;
    }

    void onMessage(Consumer<AgentMessage> handler, LongSupplier currentRun, LongSupplier preparedRun) {
        this.handler = handler;
        this.currentRun = currentRun;
        this.preparedRun = preparedRun;
    }

    /** The controller of config.controllers() that this agent tries next, or is linked to. */
    private volatile int current;

    /**
     * Connects, and reconnects with backoff whenever the link drops; a controller it cannot reach is left for the
     * next of config.controllers(). Returns only when refused for good: every token refused, or a refusal no retry can
     * help (what it holds stays in the spool for the next start).
     */
    int runForever() {
        long heartbeatMs = config.heartbeat().toMillis();
        heartbeats.scheduleAtFixedRate(this::heartbeat, heartbeatMs, heartbeatMs, TimeUnit.MILLISECONDS);
        watchdog.scheduleAtFixedRate(this::checkLink, 500, 500, TimeUnit.MILLISECONDS);
        daemon(this::streamOutbox, "qplab-sender").start();
        long backoffMs = 500;
        while (true) {
            URI controller = config.controllers().get(current);
            try {
                closed = new CompletableFuture<>();
                registered = false;
                BlockingWebSocket ws = BlockingWebSocket.connect(controller, CONNECT_TIMEOUT, this, tls);
                if (onOpen(ws)) {
                    ws.startReading("qplab-link-reader");
                }
                Ended ended = closed.join();
                LinkClose refusal = LinkClose.of(ended.code());
                if (refusal != null) {
                    long waitMs = afterRefusal(refusal, ended.reason(), backoffMs);
                    if (waitMs < 0) {
                        return giveUp();
                    }
                    sleep(waitMs);
                    backoffMs = refusal == LinkClose.ID_LIVE ? Math.min(backoffMs * 2, 10_000) : 500;
                    continue;
                }
                backoffMs = 500;
            } catch (IOException | RuntimeException e) {
                String refused = ControllerTrust.explain(controller, e, config.caFile() != null);
                // several controllers share the database: the next one in the list takes this agent, its outbox replays
                // there (the controllers keep each frame once whoever stores it)
                current = (current + 1) % config.controllers().size();
                Log.info((refused != null ? refused : "cannot reach the controller at " + controller + ": "
                        + rootMessage(e)) + "; retrying " + (config.controllers().size() > 1
                        ? "with " + config.controllers().get(current) + " " : "") + "in " + backoffMs + " ms");
            }
            sleep(backoffMs);
            backoffMs = Math.min(backoffMs * 2, 10_000);
        }
    }

    /**
     * What to do after the controller refused this agent: how long to wait before the next hello (0: at once, with
     * the next token), or -1 to give up.
     */
    private long afterRefusal(LinkClose refusal, String reason, long backoffMs) {
        return switch (refusal) {
            case TOKEN_REFUSED, ENROLMENT_CLOSED, TOKEN_REVOKED -> credentials.refused() ? 0 : -1;
            case ID_LIVE -> backoffMs; // the other link may be this agent's own, dead one that the controller still holds
            case THROTTLED -> {
                Matcher retry = RETRY_IN.matcher(reason == null ? "" : reason);
                yield (retry.find() ? Long.parseLong(retry.group(1)) : 30) * 1000 + 250;
            }
            case BAD_HELLO, NOT_ITS_RUN, FRAME_LAYOUT -> -1;
        };
    }

    /** Stops for good: what the outbox holds goes to the spool, which stays for the next start. */
    private int giveUp() {
        int kept = outbox.persist();
        Log.info("stopping: the controller refused this agent" + (credentials.current() == null
                ? " every token it has (the token file " + credentials.file() + " and --token-file or QPLAB_AGENT_TOKEN); "
                + "an admin issues it a token of its own with POST /api/agents/" + config.agentId() + "/token" : "")
                + (kept == 0 ? "" : "; " + kept + " unacknowledged frames and run ends stay in the spool "
                + config.spoolDir() + " for the next start"));
        return 2;
    }

    /** Queues a frame; never blocks on the network. */
    void sendFrame(IntervalFrame frame) {
        outbox.put(ownerOf(frame.runId()), frame);
        wakeSender();
    }

    /** RunFinished / RunFailed: queued after the run's frames, kept until the controller says RunRecorded. */
    void sendRunEnd(long runId, AgentMessage end) {
        runsEnded.incrementAndGet();
        outbox.putEnd(ownerOf(runId), runId, end);
        wakeSender();
    }

    private String ownerOf(long runId) {
        return runOwners.getOrDefault(runId, installation);
    }

    /** RunStarted and the like: sent if connected, not kept (the run's end says everything). */
    void sendNow(AgentMessage message) {
        if (registered) {
            trySend(message);
        }
    }

    /** Whether the controller has accepted this agent on the current connection. */
    boolean registered() {
        return registered;
    }

    /** Runs whose end this agent has reported (queued for the controller). */
    long runsEnded() {
        return runsEnded.get();
    }

    /** Unacknowledged entries in the outbox (frames and run ends). */
    int pending() {
        return outbox.size();
    }

    private void wakeSender() {
        synchronized (outboxSignal) {
            outboxSignal.notifyAll();
        }
    }

    private void streamOutbox() {
        while (true) {
            Long next;
            long sentOn;
            synchronized (outboxSignal) {
                while (!registered || (next = lastSent == null ? outbox.first() : outbox.after(lastSent)) == null) {
                    waitOn(outboxSignal);
                }
                sentOn = connection;
            }
            Object item;
            try {
                item = outbox.load(next);
            } catch (IllegalStateException e) {
                Log.info(e.getMessage() + "; it stays in the spool");
                sleep(1000);
                continue;
            }
            boolean sent = item == null || trySend(item); // null: acknowledged meanwhile
            synchronized (outboxSignal) {
                if (sent && sentOn == connection) {
                    lastSent = next;
                }
            }
        }
    }

    /** Sends on the current link; a send blocked on a dead link ends when the watchdog aborts the link. */
    private boolean trySend(Object item) {
        synchronized (sendLock) {
            BlockingWebSocket ws = socket;
            if (ws == null) {
                return false;
            }
            try {
                if (item instanceof IntervalFrame frame) {
                    ws.sendBinary(frame.encode());
                } else {
                    ws.sendText(json.writeValueAsBytes(item));
                }
                return true;
            } catch (IOException | RuntimeException e) {
                ws.abort();
                if (socket == ws) { // else the watchdog gave up on this link already
                    Log.info("link to controller broke while sending (" + rootMessage(e) + "); will replay after reconnect");
                    socket = null;
                    registered = false;
                    closed.complete(Ended.BROKEN);
                }
                return false;
            }
        }
    }

    /**
     * A link on which nothing has arrived for 3 heartbeats (at least 3 s) is dead, not slow: the controller
     * pings every second whatever it is doing, unless it sent something else in the last half second. Abort it; the
     * connect loop reconnects and the outbox replays.
     */
    private void checkLink() {
        BlockingWebSocket ws = socket;
        long silentMs = (System.nanoTime() - lastHeard) / 1_000_000;
        long limitMs = Math.max(3 * config.heartbeat().toMillis(), 3000);
        if (ws != null && silentMs > limitMs) {
            Log.info("nothing from the controller for " + silentMs + " ms (limit " + limitMs + " ms): the link is dead; "
                    + "reconnecting (" + outbox.size() + " unacknowledged frames and run ends kept)");
            socket = null;
            registered = false;
            ws.abort();
            closed.complete(Ended.BROKEN);
        }
    }

    private void heartbeat() {
        if (registered) {
            long run = currentRun.getAsLong();
            trySend(new AgentMessage.Heartbeat(run < 0 ? null : run, outbox.size(), outbox.memoryBytes() + outbox.diskBytes()));
        }
    }

    /** Registers on a new link: sends hello; whether it went out. */
    private boolean onOpen(BlockingWebSocket webSocket) {
        lastHeard = System.nanoTime();
        socket = webSocket;
        long current = currentRun.getAsLong();
        long prepared = preparedRun.getAsLong();
        TreeSet<Long> known = new TreeSet<>(outbox.runs());
        if (current >= 0) {
            known.add(current);
        }
        if (prepared >= 0) {
            known.add(prepared);
        }
        var hello = new AgentMessage.Hello(config.agentId(), credentials.current(), facts, current < 0 ? null : current,
                List.copyOf(known), prepared < 0 ? null : prepared);
        return trySend(hello);
    }

    @Override
    public void onText(BlockingWebSocket webSocket, String text) {
        lastHeard = System.nanoTime();
        AgentMessage message = json.readValue(text, AgentMessage.class);
        if (message instanceof AgentMessage.Welcome w) {
            credentials.accepted();
            if (w.token() != null) {
                keepIssued(w.token());
            }
            if (w.installation() != null) {
                installation = w.installation();
                int aside = outbox.keepOnly(w.installation());
                if (aside > 0) {
                    Log.info(aside + " unacknowledged frames and run ends belong to another controller installation "
                            + "than " + w.installation() + " (its database was replaced, or this agent moved): "
                            + "not replayed, kept under the spool's undeliverable/ directory");
                }
            }
            Log.info("registered with " + config.controllers().get(current) + " as " + w.agentId()
                    + (outbox.isEmpty() ? "" : "; replaying " + outbox.size() + " unacknowledged frames and run ends"));
            synchronized (outboxSignal) {
                connection++;
                lastSent = null;
                registered = true;
                outboxSignal.notifyAll();
            }
        } else if (message instanceof AgentMessage.BatchAck ack) {
            outbox.ack(new Outbox.Key(ack.runId(), ack.seq()));
        } else if (message instanceof AgentMessage.RunRecorded r) {
            outbox.ack(new Outbox.Key(r.runId(), Outbox.RUN_END));
            runOwners.remove(r.runId());
        } else {
            if (message instanceof AgentMessage.AssignRun a) {
                runOwners.put(a.runId(), installation);
            } else if (message instanceof AgentMessage.PrepareRun p) {
                runOwners.put(p.runId(), installation);
            }
            handler.accept(message);
        }
    }

    /** The controller enrolled this agent and issued it a token of its own: kept, and presented from now on. */
    private void keepIssued(String token) {
        try {
            credentials.issued(token);
            Log.info("enrolled: the controller issued this agent a token of its own, kept in " + credentials.file()
                    + " (mode 0600); the enrolment secret no longer registers " + config.agentId());
        } catch (IOException e) {
            Log.info("enrolled, but cannot keep this agent's own token in " + credentials.file() + " (" + e
                    + "): it registers with it until it stops; after that an admin must issue it a new one "
                    + "(POST /api/agents/" + config.agentId() + "/token)");
        }
    }

    @Override
    public void onPing(BlockingWebSocket webSocket) {
        lastHeard = System.nanoTime();
    }

    @Override
    public void onClosed(BlockingWebSocket webSocket, int statusCode, String reason, Throwable error) {
        if (webSocket != socket) {
            return; // a link already given up
        }
        registered = false;
        socket = null;
        if (error != null) {
            Log.info("link to controller failed: " + rootMessage(error) + "; reconnecting");
            closed.complete(Ended.BROKEN);
            return;
        }
        if (LinkClose.of(statusCode) != null) {
            Log.info("the controller refused this agent: " + reason + " (" + statusCode + " " + LinkClose.of(statusCode) + ")");
        } else {
            Log.info("controller closed the link (" + statusCode + " " + reason + "); reconnecting");
        }
        closed.complete(new Ended(statusCode, reason));
    }

    private static Thread daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    private static void waitOn(Object monitor) {
        try {
            monitor.wait(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
