package org.qplab.controller.schedule;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Lazy;
import org.springframework.stereotype.Component;

/**
 * Drives runs across two hosts: prepare (both sides create their sessions and report endpoints) →
 * connect (each gets the other's endpoint; the server accepts, the client connects) → start (the server
 * first, then the client) → run → collect (both report their end) → teardown. Each step is a barrier
 * with a timeout; a step that times out, or a side that fails, fails the run with the step and the host
 * named, and both sides are told to cancel. The client is the sending side: its samples and summary are
 * the run's; the server's own summary is kept beside them.
 *
 * <p>Message handlers are called from the agents' links, one message at a time per agent; they block
 * (database), so the gateway calls them on its database scheduler.
 */
@Component
public class PairRuns {

    private static final Logger log = LoggerFactory.getLogger(PairRuns.class);
    static final Duration PREPARE = Duration.ofSeconds(30);
    static final Duration CONNECT = Duration.ofSeconds(60);
    static final Duration START = Duration.ofSeconds(30);
    static final Duration COLLECT = Duration.ofSeconds(60);

    enum Step { PREPARE, CONNECT, START_SERVER, RUN, COLLECT }

    private static final class Pair {
        final long runId;
        final String client;
        final String server;
        final Map<String, Object> params;
        Step step = Step.PREPARE;
        long deadline;
        /** How long the run step may take (its deadline's length), for the message when it expires. */
        Duration runLimit = COLLECT;
        String clientEndpoint;
        String serverEndpoint;
        boolean clientConnected;
        boolean serverConnected;
        boolean clientEnded;
        boolean serverEnded;

        Pair(long runId, String client, String server, Map<String, Object> params) {
            this.runId = runId;
            this.client = client;
            this.server = server;
            this.params = params;
        }

        String side(String agentId) {
            return agentId.equals(client) ? "client " + client : "server " + server;
        }
    }

    private final Map<Long, Pair> pairs = new ConcurrentHashMap<>();
    /** Runs whose pair ended or timed out: late messages of theirs are only acknowledged. */
    private final Map<Long, Boolean> finished = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > 10_000;
        }
    });
    private final AgentRegistry registry;
    private final RunOutcomes outcomes;
    private final RunQueue queue;
    private final Scheduler scheduler;

    /** How long a run by iterations may run before it is stopped and failed (a duration run: its duration + collect). */
    private final Duration runTimeout;
    /** The clock of the step deadlines (System::nanoTime; a test's own to pass a step's timeout without waiting it out). */
    private final LongSupplier nanoTime;

    @Autowired
    public PairRuns(@Lazy AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, @Lazy Scheduler scheduler,
                    ScheduleProperties properties) {
        this(registry, outcomes, queue, scheduler, properties.runTimeout());
    }

    PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, Scheduler scheduler, Duration runTimeout) {
        this(registry, outcomes, queue, scheduler, runTimeout, System::nanoTime);
    }

    PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, Scheduler scheduler, Duration runTimeout,
             LongSupplier nanoTime) {
        this.runTimeout = runTimeout;
        this.nanoTime = nanoTime;
        this.registry = registry;
        this.outcomes = outcomes;
        this.queue = queue;
        this.scheduler = scheduler;
    }

    /** True when messages about runId belong here (a pair run, running or recently ended). */
    public boolean owns(long runId) {
        return pairs.containsKey(runId) || finished.containsKey(runId);
    }

    /** Starts a claimed pair run: both agents are marked busy and asked to prepare. */
    void begin(RunQueue.Assignment run, AgentConnection client, AgentConnection server) {
        Pair pair = new Pair(run.runId(), client.agentId(), server.agentId(), run.params());
        client.assigned(run.runId());
        server.assigned(run.runId());
        client.busyWith(run.runId());
        server.busyWith(run.runId());
        synchronized (pair) {
            pairs.put(run.runId(), pair);
            pair.deadline = deadline(PREPARE);
            Map<String, Object> serverSpec = new LinkedHashMap<>(run.params());
            serverSpec.put("role", "server");
            Map<String, Object> clientSpec = new LinkedHashMap<>(run.params());
            clientSpec.put("role", "client");
            boolean sent = server.send(new AgentMessage.PrepareRun(run.runId(), serverSpec))
                    & client.send(new AgentMessage.PrepareRun(run.runId(), clientSpec));
            log.info("run {} (experiment {}): pair {} -> {}, preparing", run.runId(), run.experimentId(),
                    client.agentId(), server.agentId());
            if (!sent) {
                abort(pair, "prepare: the link to an agent closed as the run was assigned", true);
            }
        }
    }

    /**
     * After a controller restart: a pair run that one of its sides is still running (or has its end to
     * report for) goes on in its run step; its end arrives as usual. No-op when the run is already here.
     */
    void adopt(RunQueue.Running run) {
        pairs.computeIfAbsent(run.runId(), id -> {
            Pair pair = new Pair(id, run.client(), run.server(), run.params());
            pair.step = Step.RUN;
            pair.serverEnded = run.serverEnded();
            pair.runLimit = runLimit(run.params());
            pair.deadline = deadline(pair.runLimit);
            log.info("run {} ({} -> {}): still running after a controller restart; waiting for its end", id,
                    run.client(), run.server());
            return pair;
        });
    }

    /** A side of the run is gone (lost-after passed, or it came back without the run): fail it, free the other. */
    void lost(long runId, String reason) {
        Pair pair = pairs.get(runId);
        if (pair != null) {
            synchronized (pair) {
                if (pairs.containsKey(runId)) {
                    abort(pair, reason, true);
                }
            }
        }
    }

    /** A step message from one side. Blocking. */
    public void on(String agentId, AgentMessage.RunMessage message) {
        long runId = message.runId();
        Pair pair = pairs.get(runId);
        if (pair == null) {
            acknowledgeLate(agentId, runId, message);
            return;
        }
        synchronized (pair) {
            if (!agentId.equals(pair.client) && !agentId.equals(pair.server)) {
                log.warn("run {}: ignoring {} from {}, which is not in its pair", runId, message.getClass().getSimpleName(), agentId);
                return;
            }
            boolean isClient = agentId.equals(pair.client);
            if (message instanceof AgentMessage.Prepared p) {
                prepared(pair, isClient, p.endpoint());
            } else if (message instanceof AgentMessage.Connected) {
                connected(pair, isClient);
            } else if (message instanceof AgentMessage.RunStarted) {
                started(pair, isClient);
            } else if (message instanceof AgentMessage.RunFinished f) {
                ended(pair, isClient, f.summary(), f.batches(), null, false);
            } else if (message instanceof AgentMessage.RunFailed f) {
                ended(pair, isClient, null, f.batches(), f.error(), Boolean.TRUE.equals(f.retryable()));
            } else {
                log.warn("run {}: ignoring an unexpected {} from {}", runId, message.getClass().getSimpleName(), agentId);
            }
        }
    }

    /**
     * Fails every pair run whose current step is past its deadline, and ends the collect step of a run whose
     * missing side is no longer connected (its own summary cannot come; its partner's host is free at once).
     */
    void expire() {
        long now = nanoTime.getAsLong();
        for (Pair pair : pairs.values()) {
            synchronized (pair) {
                if (pair.step == Step.COLLECT && pair.clientEnded && !pair.serverEnded && pairs.containsKey(pair.runId)
                        && registry.get(pair.server).isEmpty()) {
                    log.info("run {}: server {} is gone; its own summary is not kept", pair.runId, pair.server);
                    done(pair);
                } else if (pair.deadline != 0 && now - pair.deadline > 0 && pairs.containsKey(pair.runId)) {
                    if (pair.step == Step.RUN) {
                        // a run that outlived its limit would most likely do so again: not retried
                        abort(pair, "run timed out after " + pair.runLimit.toSeconds() + " s"
                                + (pair.runLimit == runTimeout ? " (qplab.schedule.run-timeout)" : " (duration_ms + "
                                + COLLECT.toSeconds() + " s)") + ", waiting for " + waitingFor(pair)
                                + "; both sides were told to stop", false);
                    } else {
                        abort(pair, stepName(pair.step) + " timed out after " + timeout(pair.step).toSeconds()
                                + " s, waiting for " + waitingFor(pair), true);
                    }
                }
            }
        }
    }

    private void prepared(Pair pair, boolean isClient, String endpoint) {
        if (isClient) {
            pair.clientEndpoint = endpoint;
        } else {
            pair.serverEndpoint = endpoint;
        }
        if (pair.step == Step.PREPARE && pair.clientEndpoint != null && pair.serverEndpoint != null) {
            pair.step = Step.CONNECT;
            pair.deadline = deadline(CONNECT);
            send(pair.server, new AgentMessage.ConnectRun(pair.runId, pair.clientEndpoint));
            send(pair.client, new AgentMessage.ConnectRun(pair.runId, pair.serverEndpoint));
        }
    }

    private void connected(Pair pair, boolean isClient) {
        if (isClient) {
            pair.clientConnected = true;
        } else {
            pair.serverConnected = true;
        }
        if (pair.step == Step.CONNECT && pair.clientConnected && pair.serverConnected) {
            pair.step = Step.START_SERVER;
            pair.deadline = deadline(START);
            send(pair.server, new AgentMessage.StartRun(pair.runId));
        }
    }

    private void started(Pair pair, boolean isClient) {
        if (!isClient && pair.step == Step.START_SERVER) {
            pair.step = Step.RUN;
            pair.runLimit = runLimit(pair.params);
            pair.deadline = deadline(pair.runLimit);
            send(pair.client, new AgentMessage.StartRun(pair.runId));
        } else if (isClient) {
            log.info("run {} started: {} -> {}", pair.runId, pair.client, pair.server);
        }
    }

    private void ended(Pair pair, boolean isClient, Map<String, Object> summary, long batches, String error,
                       boolean retryable) {
        if (isClient) {
            pair.clientEnded = true;
            if (error == null) {
                outcomes.finished(pair.runId, pair.client, summary, batches);
            } else {
                outcomes.failed(pair.runId, pair.client, "client " + pair.client + ": " + error, retryable);
            }
            send(pair.client, new AgentMessage.RunRecorded(pair.runId));
        } else {
            pair.serverEnded = true;
            queue.serverEnded(pair.runId, pair.server, error == null ? summary : Map.of("error", error));
            if (error != null && !pair.clientEnded) {
                outcomes.failed(pair.runId, pair.client, "server " + pair.server + " during " + stepName(pair.step) + ": "
                        + error, retryable);
                send(pair.client, new AgentMessage.CancelRun(pair.runId));
            }
            send(pair.server, new AgentMessage.RunRecorded(pair.runId));
        }
        if (pair.clientEnded && pair.serverEnded) {
            done(pair);
        } else if (pair.step != Step.COLLECT && (pair.clientEnded || error != null)) {
            pair.step = Step.COLLECT;
            pair.deadline = deadline(COLLECT);
        }
    }

    /** How long the run step may take: a duration run its duration + collect, a run by iterations run-timeout. */
    private Duration runLimit(Map<String, Object> params) {
        Object duration = params.get("duration_ms");
        return duration instanceof Number ms && ms.longValue() > 0 ? Duration.ofMillis(ms.longValue()).plus(COLLECT) : runTimeout;
    }

    /** Fails the run (tried again when retryable and tries are left), tells both sides to cancel and frees them. */
    private void abort(Pair pair, String reason, boolean retryable) {
        log.warn("run {} ({} -> {}): {}", pair.runId, pair.client, pair.server, reason);
        if (!pair.clientEnded) {
            outcomes.failed(pair.runId, pair.client, reason, retryable);
        }
        for (String agent : new String[] {pair.client, pair.server}) {
            send(agent, new AgentMessage.CancelRun(pair.runId));
        }
        done(pair);
    }

    /** The run is over on both sides (or given up): both hosts are free again, together. */
    private void done(Pair pair) {
        for (String agent : new String[] {pair.client, pair.server}) {
            registry.get(agent).ifPresent(c -> {
                if (Long.valueOf(pair.runId).equals(c.busyWith())) {
                    c.busyWith(null);
                }
            });
        }
        pairs.remove(pair.runId);
        finished.put(pair.runId, Boolean.TRUE);
        scheduler.wake();
    }

    private void acknowledgeLate(String agentId, long runId, AgentMessage message) {
        if (message instanceof AgentMessage.RunEnd) {
            release(agentId, runId);
        } else if (message instanceof AgentMessage.Prepared || message instanceof AgentMessage.Connected) {
            send(agentId, new AgentMessage.CancelRun(runId)); // its pair is gone: drop the session
        }
    }

    private void release(String agentId, long runId) {
        registry.get(agentId).ifPresent(c -> {
            c.send(new AgentMessage.RunRecorded(runId));
            if (Long.valueOf(runId).equals(c.busyWith())) {
                c.busyWith(null);
            }
        });
        scheduler.wake();
    }

    private void send(String agentId, AgentMessage message) {
        boolean sent = registry.get(agentId).map(c -> c.send(message)).orElse(false);
        if (!sent) {
            log.warn("could not send {} to {}: not connected", message.getClass().getSimpleName(), agentId);
        }
    }

    private static String waitingFor(Pair pair) {
        return switch (pair.step) {
            case PREPARE -> sides(pair, pair.clientEndpoint == null, pair.serverEndpoint == null) + " to create its session";
            case CONNECT -> sides(pair, !pair.clientConnected, !pair.serverConnected) + " to connect";
            case START_SERVER -> "server " + pair.server + " to start";
            case RUN -> "client " + pair.client + " to end the run";
            case COLLECT -> sides(pair, !pair.clientEnded, !pair.serverEnded) + " to report its end";
        };
    }

    private static String sides(Pair pair, boolean client, boolean server) {
        if (client && server) {
            return "client " + pair.client + " and server " + pair.server;
        }
        return client ? "client " + pair.client : "server " + pair.server;
    }

    private static String stepName(Step step) {
        return step.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }

    private static Duration timeout(Step step) {
        return switch (step) {
            case PREPARE -> PREPARE;
            case CONNECT -> CONNECT;
            case START_SERVER -> START;
            case RUN, COLLECT -> COLLECT;
        };
    }

    private long deadline(Duration d) {
        long t = nanoTime.getAsLong() + d.toNanos();
        return t == 0 ? 1 : t;
    }
}
