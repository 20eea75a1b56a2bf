package org.qplab.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

/**
 * JSON text frames on the agent's WebSocket, both directions; the "type" field names the record.
 * Intervals and trace records travel separately, in binary {@link IntervalFrame}s.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = AgentMessage.Hello.class, name = "hello"),
        @JsonSubTypes.Type(value = AgentMessage.Welcome.class, name = "welcome"),
        @JsonSubTypes.Type(value = AgentMessage.Heartbeat.class, name = "heartbeat"),
        @JsonSubTypes.Type(value = AgentMessage.AssignRun.class, name = "assign-run"),
        @JsonSubTypes.Type(value = AgentMessage.CancelRun.class, name = "cancel-run"),
        @JsonSubTypes.Type(value = AgentMessage.RunStarted.class, name = "run-started"),
        @JsonSubTypes.Type(value = AgentMessage.RunFinished.class, name = "run-finished"),
        @JsonSubTypes.Type(value = AgentMessage.RunFailed.class, name = "run-failed"),
        @JsonSubTypes.Type(value = AgentMessage.BatchAck.class, name = "batch-ack"),
        @JsonSubTypes.Type(value = AgentMessage.RunRecorded.class, name = "run-recorded"),
        @JsonSubTypes.Type(value = AgentMessage.PrepareRun.class, name = "prepare-run"),
        @JsonSubTypes.Type(value = AgentMessage.Prepared.class, name = "prepared"),
        @JsonSubTypes.Type(value = AgentMessage.ConnectRun.class, name = "connect-run"),
        @JsonSubTypes.Type(value = AgentMessage.Connected.class, name = "connected"),
        @JsonSubTypes.Type(value = AgentMessage.StartRun.class, name = "start-run"),
})
public sealed interface AgentMessage {

    /** A message about one run, which it names by id: every message but hello, welcome and the heartbeat. */
    sealed interface RunMessage extends AgentMessage {
        long runId();
    }

    /** Agent → controller: the run has ended on this agent ({@link RunFinished} or {@link RunFailed}). */
    sealed interface RunEnd extends RunMessage {
        /** How many frames (seq 0 .. batches-1) carry the run's records. */
        long batches();
    }

    /**
     * Agent → controller, first frame: who it is, its token, its host facts, the run it is executing
     * (or null), the pair run whose session it has prepared but not started (or null), and every run it
     * still holds anything of (executing, prepared, or frames and ends not yet acknowledged). A run the
     * controller thinks is running there but that is not in knownRuns was lost with an earlier agent process.
     * frameLayout: the {@link IntervalFrame} layout version it sends (null from agents before interval
     * statistics); the controller refuses an agent whose frames it cannot read, saying so.
     */
    record Hello(String agentId, String token, Map<String, Object> facts, Long currentRun, List<Long> knownRuns,
                 Long preparedRun, Integer frameLayout) implements AgentMessage {
        public Hello(String agentId, String token, Map<String, Object> facts, Long currentRun, List<Long> knownRuns,
                     Long preparedRun) {
            this(agentId, token, facts, currentRun, knownRuns, preparedRun, (int) IntervalFrame.VERSION);
        }

        public Hello(String agentId, String token, Map<String, Object> facts, Long currentRun, List<Long> knownRuns) {
            this(agentId, token, facts, currentRun, knownRuns, null);
        }
    }

    /**
     * Controller → agent: registration accepted. installation identifies the controller's database: run
     * ids belong to it, so an agent delivers what it kept of a run only to the installation that assigned it.
     * token: the agent's own token when it enrolled with the shared enrolment secret just now (null otherwise);
     * the agent keeps it (a 0600 file in its state directory) and presents it from then on, since the
     * secret no longer registers this id.
     */
    record Welcome(String agentId, String installation, String token) implements AgentMessage {
        public Welcome(String agentId, String installation) {
            this(agentId, installation, null);
        }
    }

    /**
     * Agent → controller, periodically: runId is the run in progress or null; spooled and spoolBytes what it
     * keeps unacknowledged (frames and run ends, in memory and on disk; null from agents that do not say).
     */
    record Heartbeat(Long runId, Integer spooled, Long spoolBytes) implements AgentMessage {
        public Heartbeat(Long runId) {
            this(runId, null, null);
        }
    }

    /** Controller → agent: run this engine spec (provider, threads, msg_size, ...). */
    record AssignRun(long runId, Map<String, Object> spec) implements RunMessage {}

    /** Controller → agent: stop this run early. */
    record CancelRun(long runId) implements RunMessage {}

    /** Agent → controller: the engine accepted the spec and the run is under way. */
    record RunStarted(long runId) implements RunMessage {}

    /**
     * Agent → controller, after the last frame of the run: the engine's summary JSON,
     * and how many frames (seq 0 .. batches-1) carry the run's records.
     */
    record RunFinished(long runId, Map<String, Object> summary, long batches) implements RunEnd {}

    /**
     * Agent → controller: the run could not be done; error is the engine's message. retryable: the failure
     * may pass (a system call, the network, the peer, an error completion), unlike a spec or capability
     * refusal, which would fail the same way again; null from agents that do not say.
     */
    record RunFailed(long runId, String error, long batches, Boolean retryable) implements RunEnd {
        public RunFailed(long runId, String error, long batches) {
            this(runId, error, batches, null);
        }
    }

    /** Controller → agent: frame (runId, seq) is stored; the agent may forget it. */
    record BatchAck(long runId, long seq) implements RunMessage {}

    /** Controller → agent: the run's end (finished or failed) is stored; the agent may forget the run. */
    record RunRecorded(long runId) implements RunMessage {}

    // A run across two hosts: prepare -> endpoint -> connect -> start, each step a barrier the controller
    // waits at with a timeout; then run, collect (RunFinished/RunFailed from both) and teardown.

    /**
     * Controller → agent: create the engine session of one side of a pair run (spec's role is "client"
     * or "server"); answer {@link Prepared} with the local endpoint, or {@link RunFailed}.
     */
    record PrepareRun(long runId, Map<String, Object> spec) implements RunMessage {}

    /** Agent → controller: the session exists; endpoint is the engine's blob for the peer. */
    record Prepared(long runId, String endpoint) implements RunMessage {}

    /** Controller → agent: connect the prepared session to the peer's endpoint; answer {@link Connected}. */
    record ConnectRun(long runId, String peerEndpoint) implements RunMessage {}

    /** Agent → controller: every connection of the run is up. */
    record Connected(long runId) implements RunMessage {}

    /** Controller → agent: start the connected session (server first); answer {@link RunStarted}. */
    record StartRun(long runId) implements RunMessage {}
}
