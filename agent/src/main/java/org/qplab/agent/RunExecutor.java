package org.qplab.agent;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.qplab.agent.log.Log;
import org.qplab.agent.provider.Provider;
import org.qplab.engine.EngineException;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.RunSession;
import org.qplab.engine.provider.Providers;
import org.qplab.protocol.AgentMessage;
import tools.jackson.databind.ObjectMapper;

/**
 * Runs benchmarks one at a time on the agent's engine thread: a loopback run when assigned, or one
 * side of a pair run step by step (prepare, connect, start); drains the session's intervals (and trace
 * records) while the run goes, ships them in numbered frames ({@link FrameBatcher}), then reports the summary.
 * A session is opened by the run's {@link Provider}: the native engine's (tcp, verbs) or NVMe-oF's (the kernel's
 * target or initiator and fio).
 */
final class RunExecutor {


    private final ControllerLink link;
    private final ObjectMapper json;
    private final ExecutorService engineThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "qplab-engine"));
    private volatile long currentRunId = -1;
    private volatile RunSession current;
    private final Set<Long> cancelledBeforeStart = ConcurrentHashMap.newKeySet();
    /** Whether the engine thread is stuck in a run that does not stop or a teardown that does not return. */
    private final EngineWatch watch = new EngineWatch();
    /** What runs a side, by its spec's provider (see {@link #providerOf}). */
    private final List<Provider> providers;
    /** A pair run's session between prepare and start; engine thread only. */
    private RunSession prepared;
    /** The prepared session is a pair's server side: its statistics are its summary only (see run). */
    private boolean preparedServer;
    private volatile long preparedRunId = -1;

    RunExecutor(ControllerLink link, ObjectMapper json, List<Provider> providers) {
        this.link = link;
        this.json = json;
        this.providers = List.copyOf(providers);
    }

    long currentRunId() {
        return currentRunId;
    }

    /** Why the engine takes no run now (a run that does not stop, a teardown that does not return), or null. */
    String engineStuck() {
        return watch.stuck();
    }

    /** The pair run whose session is prepared (or connected) but not started, or -1. */
    long preparedRunId() {
        return preparedRunId;
    }

    void handle(AgentMessage message) {
        if (message instanceof AgentMessage.AssignRun assign) {
            if (!refusedWhileStuck(assign.runId())) {
                engineThread.execute(() -> execute(assign.runId(), assign.spec()));
            }
        } else if (message instanceof AgentMessage.PrepareRun prepare) {
            if (!refusedWhileStuck(prepare.runId())) {
                engineThread.execute(() -> prepare(prepare.runId(), prepare.spec()));
            }
        } else if (message instanceof AgentMessage.ConnectRun connect) {
            engineThread.execute(() -> connect(connect.runId(), connect.peerEndpoint()));
        } else if (message instanceof AgentMessage.StartRun start) {
            engineThread.execute(() -> startPrepared(start.runId()));
        } else if (message instanceof AgentMessage.CancelRun cancel) {
            RunSession session = current;
            if (session != null && currentRunId == cancel.runId()) {
                Log.info("run " + cancel.runId() + ": cancel requested");
                watch.stopRequested(cancel.runId(), session.stuckAfter());
                session.stop();
            } else {
                // assigned or prepared, waiting for the engine thread: dropped when it gets there
                cancelledBeforeStart.add(cancel.runId());
                engineThread.execute(() -> dropPrepared(cancel.runId()));
            }
        } else {
            Log.info("ignoring unexpected message " + message.getClass().getSimpleName());
        }
    }

    /**
     * A new run while the engine thread is stuck would wait behind it for good: it fails at once instead,
     * not to be retried here (the agent needs a restart).
     */
    private boolean refusedWhileStuck(long runId) {
        String stuck = watch.stuck();
        if (stuck == null) {
            return false;
        }
        link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, stuck, 0, false));
        return true;
    }

    /** Destroys a session on the engine thread, watched: a teardown may not return (see {@link EngineWatch}). */
    private void closeWatched(long runId, RunSession session) {
        watch.tearingDown(runId, session.stuckAfter());
        try {
            session.close();
        } finally {
            watch.idle();
        }
    }

    /** One side of a pair run: create the session and report its endpoint. Engine thread. */
    private void prepare(long runId, Map<String, Object> params) {
        if (cancelledBeforeStart.remove(runId)) {
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, "cancelled before it started", 0, false));
            return;
        }
        closePrepared("a new run was prepared");
        Map<String, Object> spec = providerOf(params).sideSpec(params);
        Log.info("run " + runId + ": preparing " + spec);
        try {
            RunSession session = create(runId, spec);
            prepared = session;
            preparedServer = "server".equals(spec.get("role"));
            preparedRunId = runId;
            link.sendNow(new AgentMessage.Prepared(runId, session.localEndpoint()));
        } catch (EngineException | IllegalStateException e) {
            Log.info("run " + runId + ": prepare failed: " + e.getMessage());
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, e.getMessage(), 0, retryable(e)));
        }
    }

    /** Connects the prepared session to the peer (a server waits here for the client). Engine thread. */
    private void connect(long runId, String peerEndpoint) {
        RunSession session = preparedFor(runId);
        if (session == null) {
            return;
        }
        try {
            session.connect(peerEndpoint);
            link.sendNow(new AgentMessage.Connected(runId));
        } catch (EngineException | IllegalStateException e) {
            Log.info("run " + runId + ": connect failed: " + e.getMessage());
            closePrepared("connect failed");
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, e.getMessage(), 0, retryable(e)));
        }
    }

    private void startPrepared(long runId) {
        RunSession session = preparedFor(runId);
        if (session == null) {
            return;
        }
        currentRunId = runId; // before it stops being prepared: a hello in between still names it
        boolean server = preparedServer;
        prepared = null;
        preparedRunId = -1;
        try {
            run(runId, session, server);
        } finally {
            closeWatched(runId, session);
        }
    }

    private void dropPrepared(long runId) {
        if (preparedRunId == runId && cancelledBeforeStart.remove(runId)) {
            closePrepared("cancelled");
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, "cancelled before it started", 0, false));
        }
    }

    private RunSession preparedFor(long runId) {
        if (preparedRunId != runId || prepared == null) {
            if (!cancelledBeforeStart.remove(runId)) {
                link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, "run " + runId + " is not prepared on this agent "
                        + "(it was restarted, or the steps came out of order)", 0, true));
            }
            return null;
        }
        return prepared;
    }

    private void closePrepared(String why) {
        if (prepared != null) {
            Log.info("run " + preparedRunId + ": dropping its prepared session (" + why + ")");
            closeWatched(preparedRunId, prepared);
            prepared = null;
            preparedRunId = -1;
        }
    }

    private void execute(long runId, Map<String, Object> params) {
        if (cancelledBeforeStart.remove(runId)) {
            Log.info("run " + runId + ": cancelled before it started");
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, "cancelled before it started", 0, false));
            return;
        }
        closePrepared("a loopback run was assigned");
        Map<String, Object> spec = new LinkedHashMap<>(params);
        spec.putIfAbsent("role", "loopback");
        Log.info("run " + runId + ": starting " + spec);
        try {
            RunSession session = create(runId, spec);
            try {
                run(runId, session, false);
            } finally {
                closeWatched(runId, session);
            }
        } catch (EngineException | IllegalStateException e) {
            Log.info("run " + runId + ": failed: " + e.getMessage());
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, e.getMessage(), 0, retryable(e)));
        }
    }

    /** The session of one side of a run, opened by its provider. */
    private RunSession create(long runId, Map<String, Object> spec) {
        return providerOf(spec).open(runId, spec);
    }

    /** The provider whose spec answers for the run's provider key (the engine's for one it does not know). */
    private Provider providerOf(Map<String, Object> spec) {
        ProviderSpec wanted = Providers.of(spec);
        return providers.stream().filter(p -> p.spec() == wanted).findFirst()
                .orElseThrow(() -> new IllegalStateException("this agent has no provider " + spec.get("provider")));
    }

    /**
     * Whether trying again may succeed: a failed system or verbs call, or a run that failed while it ran
     * (peer gone, error completion). An invalid spec, a refusal by the device, or an engine that cannot
     * load would fail the same way again.
     */
    static boolean retryable(RuntimeException e) {
        return e instanceof EngineException engine
                && (engine.status() == EngineException.ESYS || engine.status() == EngineException.ERUN);
    }

    /**
     * Starts a created (and, for a pair, connected) session, streams its statistics, reports its end. A pair's
     * server side streams nothing: the run's intervals are the client's (a bidirectional server also sends and
     * closes intervals of its own; they are drained and dropped, its summary keeps its numbers).
     */
    private void run(long runId, RunSession session, boolean server) {
        currentRunId = runId;
        FrameBatcher frames = new FrameBatcher(runId, server ? frame -> { } : link::sendFrame);
        try {
            current = session;
            session.start();
            link.sendNow(new AgentMessage.RunStarted(runId));
            // Drain as the engine closes intervals: frames go to the link's outbox and are sent by its own
            // thread, so a slow network or controller never stalls draining (and never makes an interval wait).
            boolean ended = false;
            while (!ended) {
                ended = session.awaitEnd(session.drainInterval());
                frames.drain(session, ended);
            }
            long seq = server ? 0 : frames.sent();
            Map<String, Object> summary = json.readValue(session.summaryJson(), Map.class);
            Object error = summary.get("error");
            if (error instanceof String text && !text.isEmpty()) {
                Log.info("run " + runId + ": failed: " + text);
                link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, text, seq, true)); // failed while running
            } else {
                Log.info("run " + runId + ": finished, " + summary.get("cycles") + " cycles in " + summary.get("intervals")
                        + " intervals, " + seq + " frames"
                        + (summary.get("dropped") instanceof Number d && d.longValue() > 0
                                ? " (" + d + " trace records dropped: the trace ring was not drained in time)" : ""));
                link.sendRunEnd(runId, new AgentMessage.RunFinished(runId, summary, seq));
            }
        } catch (EngineException | IllegalStateException e) {
            Log.info("run " + runId + ": failed: " + e.getMessage());
            link.sendRunEnd(runId, new AgentMessage.RunFailed(runId, e.getMessage(), server ? 0 : frames.sent(), retryable(e)));
        } finally {
            current = null;
            currentRunId = -1;
        }
    }
}
