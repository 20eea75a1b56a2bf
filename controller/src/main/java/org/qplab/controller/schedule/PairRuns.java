package org.qplab.controller.schedule;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentReady;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.provider.Providers;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;

/**
 * Drives runs across two hosts: prepare (both sides create their sessions and report endpoints) →
 * connect (each gets the other's endpoint; the server accepts, the client connects) → start (the server
 * first, then the client) → run → collect (both report their end) → teardown. Each step is a barrier
 * with a timeout; a step that times out, or a side that fails, fails the run with the step and the host
 * named, and both sides are told to cancel. The client is the sending side: its frames and summary are
 * the run's; the server's own summary is kept beside them.
 *
 * <p>Message handlers are called from the agents' links, one message at a time per agent; they block
 * (database), so the gateway calls them on its database scheduler.
 */
@Component
public class PairRuns {

    private static final Logger log = LoggerFactory.getLogger(PairRuns.class);

    /** The steps of a pair run, each with how long it may take; the run step's limit is the run's own. */
    enum Step {
        PREPARE(Duration.ofSeconds(30)),
        CONNECT(Duration.ofSeconds(60)),
        START_SERVER(Duration.ofSeconds(30)),
        /**
         * Its limit: a duration run's duration + COLLECT's, an nvmeof run's runtime_ms + a set-up margin +
         * COLLECT's, a run by iterations (or fio by size) qplab.schedule.run-timeout.
         */
        RUN(null),
        COLLECT(Duration.ofSeconds(60));

        private final Duration timeout;

        Step(Duration timeout) {
            this.timeout = timeout;
        }

        Duration timeout() {
            return timeout;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /** One host of a pair run and how far it got. */
    private static final class Side {
        final String role;
        final String agentId;
        String endpoint;
        boolean connected;
        boolean ended;

        Side(String role, String agentId) {
            this.role = role;
            this.agentId = agentId;
        }

        /** "client host-a": how messages name it. */
        @Override
        public String toString() {
            return role + " " + agentId;
        }
    }

    private static final class Pair {
        final long runId;
        final Side client;
        final Side server;
        final Map<String, Object> params;
        Step step;
        long deadline;
        /** How long the current step may take (its deadline's length), for the message when it expires. */
        Duration limit;

        Pair(long runId, String client, String server, Map<String, Object> params) {
            this.runId = runId;
            this.client = new Side("client", client);
            this.server = new Side("server", server);
            this.params = params;
        }

        List<Side> sides() {
            return List.of(client, server);
        }

        /** The side agentId is, or null when it is not in this pair. */
        Side side(String agentId) {
            return agentId.equals(client.agentId) ? client : agentId.equals(server.agentId) ? server : null;
        }

        Side other(Side side) {
            return side == client ? server : client;
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
    /** Where freed agents are announced ({@link AgentReady}): the scheduler hands them queued runs. */
    private final ApplicationEventPublisher events;

    /** How long a run by iterations may run before it is stopped and failed (a duration run: its duration + collect). */
    private final Duration runTimeout;
    /** Hosts whose link is on another controller (null in unit tests: every host is here). */
    private final PairRelay relay;
    /** The clock of the step deadlines (System::nanoTime; a test's own to pass a step's timeout without waiting it out). */
    private final LongSupplier nanoTime;

    @Autowired
    public PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, ApplicationEventPublisher events,
                    ScheduleProperties properties, PairRelay relay) {
        this(registry, outcomes, queue, events, properties.runTimeout(), System::nanoTime, relay);
        relay.receiver(this::on);
    }

    PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, ApplicationEventPublisher events,
             Duration runTimeout) {
        this(registry, outcomes, queue, events, runTimeout, System::nanoTime);
    }

    PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, ApplicationEventPublisher events,
             Duration runTimeout, LongSupplier nanoTime) {
        this(registry, outcomes, queue, events, runTimeout, nanoTime, null);
    }

    private PairRuns(AgentRegistry registry, RunOutcomes outcomes, RunQueue queue, ApplicationEventPublisher events,
                     Duration runTimeout, LongSupplier nanoTime, PairRelay relay) {
        this.relay = relay;
        this.runTimeout = runTimeout;
        this.nanoTime = nanoTime;
        this.registry = registry;
        this.outcomes = outcomes;
        this.queue = queue;
        this.events = events;
    }

    /** True when messages about runId belong here (a pair run, running or recently ended). */
    public boolean owns(long runId) {
        return pairs.containsKey(runId) || finished.containsKey(runId);
    }

    /** Starts a claimed pair run: both agents are marked busy and asked to prepare. */
    void begin(RunQueue.Assignment run, AgentConnection client, AgentConnection server) {
        begin(run, client, server.agentId(), server);
    }

    /**
     * Starts a claimed pair run whose server is serverId: connected here (server), or on another controller (server
     * null), which marks it busy when the prepare message reaches it ({@link PairRelay}).
     */
    void begin(RunQueue.Assignment run, AgentConnection client, String serverId, AgentConnection server) {
        Pair pair = new Pair(run.runId(), client.agentId(), serverId, run.params());
        client.assigned(run.runId());
        client.busyWith(run.runId());
        if (server != null) {
            server.assigned(run.runId());
            server.busyWith(run.runId());
        }
        synchronized (pair) {
            pairs.put(run.runId(), pair);
            enter(pair, Step.PREPARE, prepareLimit(run.params()));
            Map<String, Object> serverSpec = new LinkedHashMap<>(run.params());
            serverSpec.put("role", "server");
            Map<String, Object> clientSpec = new LinkedHashMap<>(run.params());
            clientSpec.put("role", "client");
            boolean sent = send(serverId, new AgentMessage.PrepareRun(run.runId(), serverSpec))
                    & client.send(new AgentMessage.PrepareRun(run.runId(), clientSpec));
            log.info("run {} (experiment {}): pair {} -> {}{}, preparing", run.runId(), run.experimentId(),
                    client.agentId(), serverId, server == null ? " (on another controller)" : "");
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
            pair.server.ended = run.serverEnded();
            enter(pair, Step.RUN, runLimit(run.params()));
            log.info("run {} ({} -> {}): still running after its controller restarted or died; waiting for its end", id,
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
            Side side = pair.side(agentId);
            if (side == null) {
                log.warn("run {}: ignoring {} from {}, which is not in its pair", runId, message.getClass().getSimpleName(), agentId);
                return;
            }
            if (message instanceof AgentMessage.Prepared p) {
                prepared(pair, side, p.endpoint());
            } else if (message instanceof AgentMessage.Connected) {
                connected(pair, side);
            } else if (message instanceof AgentMessage.RunStarted) {
                started(pair, side);
            } else if (message instanceof AgentMessage.RunFinished f) {
                ended(pair, side, f.summary(), f.batches(), null, false);
            } else if (message instanceof AgentMessage.RunFailed f) {
                ended(pair, side, null, f.batches(), f.error(), Boolean.TRUE.equals(f.retryable()));
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
                if (pair.step == Step.COLLECT && pair.client.ended && !pair.server.ended && pairs.containsKey(pair.runId)
                        && !connected(pair.server.agentId)) {
                    log.info("run {}: {} is gone; its own summary is not kept", pair.runId, pair.server);
                    done(pair);
                } else if (pair.deadline != 0 && now - pair.deadline > 0 && pairs.containsKey(pair.runId)) {
                    if (pair.step == Step.RUN) {
                        // a run that outlived its limit would most likely do so again: not retried
                        abort(pair, "run timed out after " + pair.limit.toSeconds() + " s"
                                + (pair.limit == runTimeout ? " (qplab.schedule.run-timeout)" : limitText(pair.params))
                                + ", waiting for " + waitingFor(pair)
                                + "; both sides were told to stop", false);
                    } else {
                        abort(pair, pair.step + " timed out after " + pair.limit.toSeconds() + " s, waiting for "
                                + waitingFor(pair), true);
                    }
                }
            }
        }
    }

    private void prepared(Pair pair, Side side, String endpoint) {
        side.endpoint = endpoint;
        if (pair.step == Step.PREPARE && pair.client.endpoint != null && pair.server.endpoint != null) {
            enter(pair, Step.CONNECT, Step.CONNECT.timeout());
            for (Side each : List.of(pair.server, pair.client)) { // the server first: it accepts, the client connects
                send(each.agentId, new AgentMessage.ConnectRun(pair.runId, pair.other(each).endpoint));
            }
        }
    }

    private void connected(Pair pair, Side side) {
        side.connected = true;
        if (pair.step == Step.CONNECT && pair.client.connected && pair.server.connected) {
            enter(pair, Step.START_SERVER, Step.START_SERVER.timeout());
            send(pair.server.agentId, new AgentMessage.StartRun(pair.runId));
        }
    }

    private void started(Pair pair, Side side) {
        if (side == pair.server && pair.step == Step.START_SERVER) {
            enter(pair, Step.RUN, runLimit(pair.params));
            send(pair.client.agentId, new AgentMessage.StartRun(pair.runId));
        } else if (side == pair.client) {
            log.info("run {} started: {} -> {}", pair.runId, pair.client.agentId, pair.server.agentId);
        }
    }

    /** A side's end: the client's is the run's outcome; the server's is kept beside it, and fails a run it cut short. */
    private void ended(Pair pair, Side side, Map<String, Object> summary, long batches, String error, boolean retryable) {
        side.ended = true;
        if (side == pair.client) {
            if (error == null) {
                outcomes.finished(pair.runId, side.agentId, summary, batches);
            } else {
                outcomes.failed(pair.runId, side.agentId, side + ": " + error, retryable);
            }
        } else {
            queue.serverEnded(pair.runId, side.agentId, error == null ? summary : Map.of("error", error));
            if (error != null && !pair.client.ended) {
                outcomes.failed(pair.runId, pair.client.agentId, side + " during " + pair.step + ": " + error, retryable);
                send(pair.client.agentId, new AgentMessage.CancelRun(pair.runId));
            }
        }
        send(side.agentId, new AgentMessage.RunRecorded(pair.runId));
        if (pair.client.ended && pair.server.ended) {
            done(pair);
        } else if (pair.step != Step.COLLECT && (pair.client.ended || error != null)) {
            enter(pair, Step.COLLECT, Step.COLLECT.timeout());
        }
    }

    /**
     * How long the run step may take, as the point's provider plans it: a time-based run its planned length (the
     * engine's duration_ms, fio's runtime_ms) + what its end adds (nvmeof's initiator also starts fio and disconnects
     * inside the step) + collect; a run by iterations or size run-timeout.
     */
    Duration runLimit(Map<String, Object> params) {
        ProviderSpec.Timing timing = Providers.of(params).timing(params);
        return timing.planned() == null ? runTimeout
                : timing.planned().plus(timing.margin()).plus(Step.COLLECT.timeout());
    }

    /**
     * How long both sides may take to prepare: the provider's own limit (an nvmeof side first removes what dead runs
     * left, may load modules, makes its target and probes fio), else the step's.
     */
    static Duration prepareLimit(Map<String, Object> params) {
        Duration prepare = Providers.of(params).timing(params).prepare();
        return prepare != null ? prepare : Step.PREPARE.timeout();
    }

    private static String limitText(Map<String, Object> params) {
        ProviderSpec.Timing timing = Providers.of(params).timing(params);
        return " (" + timing.durationKey() + (timing.margin().isZero() ? "" : " + " + timing.margin().toSeconds() + " s")
                + " + " + Step.COLLECT.timeout().toSeconds() + " s)";
    }

    /** Fails the run (tried again when retryable and tries are left), tells both sides to cancel and frees them. */
    private void abort(Pair pair, String reason, boolean retryable) {
        log.warn("run {} ({} -> {}): {}", pair.runId, pair.client.agentId, pair.server.agentId, reason);
        if (!pair.client.ended) {
            outcomes.failed(pair.runId, pair.client.agentId, reason, retryable);
        }
        for (Side side : pair.sides()) {
            send(side.agentId, new AgentMessage.CancelRun(pair.runId));
        }
        done(pair);
    }

    /** The run is over on both sides (or given up): both hosts are free again, together. */
    private void done(Pair pair) {
        for (Side side : pair.sides()) {
            free(side.agentId, pair.runId);
        }
        pairs.remove(pair.runId);
        finished.put(pair.runId, Boolean.TRUE);
        for (Side side : pair.sides()) {
            events.publishEvent(new AgentReady(side.agentId));
        }
    }

    private void acknowledgeLate(String agentId, long runId, AgentMessage message) {
        if (message instanceof AgentMessage.RunEnd end) {
            // a server's end its pair's driver never took (it died): kept beside the run, as a driver would have
            queue.serverEnded(runId, agentId, end instanceof AgentMessage.RunFinished f ? f.summary()
                    : Map.of("error", String.valueOf(((AgentMessage.RunFailed) end).error())));
            release(agentId, runId);
        } else if (message instanceof AgentMessage.Prepared || message instanceof AgentMessage.Connected) {
            send(agentId, new AgentMessage.CancelRun(runId)); // its pair is gone: drop the session
        }
    }

    private void release(String agentId, long runId) {
        send(agentId, new AgentMessage.RunRecorded(runId));
        free(agentId, runId);
        events.publishEvent(new AgentReady(agentId));
    }

    /** agentId is no longer busy with runId: here, or on the controller its link is on. */
    private void free(String agentId, long runId) {
        Optional<AgentConnection> here = registry.get(agentId);
        if (here.isPresent()) {
            if (Long.valueOf(runId).equals(here.get().busyWith())) {
                here.get().busyWith(null);
            }
        } else if (relay != null) {
            relay.release(agentId, runId);
        }
    }

    /** Whether agentId has a live link, here or on another controller. */
    private boolean connected(String agentId) {
        return registry.get(agentId).isPresent() || relay != null && relay.connectedElsewhere(agentId);
    }

    /** Sends a message about a run to agentId, here or through the controller its link is on. */
    private boolean send(String agentId, AgentMessage.RunMessage message) {
        boolean sent = registry.get(agentId).map(c -> c.send(message))
                .orElseGet(() -> relay != null && relay.toAgent(agentId, message));
        if (!sent) {
            log.warn("could not send {} to {}: not connected", message.getClass().getSimpleName(), agentId);
        }
        return sent;
    }

    /** The step begins now and may take limit. */
    private void enter(Pair pair, Step step, Duration limit) {
        pair.step = step;
        pair.limit = limit;
        pair.deadline = deadline(limit);
    }

    private static String waitingFor(Pair pair) {
        return switch (pair.step) {
            case PREPARE -> sides(pair, side -> side.endpoint == null) + " to create its session";
            case CONNECT -> sides(pair, side -> !side.connected) + " to connect";
            case START_SERVER -> pair.server + " to start";
            case RUN -> pair.client + " to end the run";
            case COLLECT -> sides(pair, side -> !side.ended) + " to report its end";
        };
    }

    /** "client a and server b", "server b": the sides still to do what the step waits for. */
    private static String sides(Pair pair, Predicate<Side> waiting) {
        return pair.sides().stream().filter(waiting).map(Side::toString).collect(Collectors.joining(" and "));
    }

    private long deadline(Duration d) {
        long t = nanoTime.getAsLong() + d.toNanos();
        return t == 0 ? 1 : t;
    }
}
