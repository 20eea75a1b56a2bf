package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.contains;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.protocol.AgentMessage;

/**
 * The run step of a pair run is bounded: a run by iterations that does not end within
 * qplab.schedule.run-timeout is failed with the limit named and both sides are told to stop. The
 * agents, the database and the scheduler are stand-ins here; the steps are driven as the agents
 * would drive them.
 */
class PairRunsTests {

    private static final long RUN = 42;

    private final AgentRegistry registry = mock(AgentRegistry.class);
    private final RunOutcomes outcomes = mock(RunOutcomes.class);
    private final RunQueue queue = mock(RunQueue.class);
    private final Scheduler scheduler = mock(Scheduler.class);
    private final List<String> sent = new ArrayList<>();

    private AgentConnection agent(String id) {
        AgentConnection connection = mock(AgentConnection.class);
        when(connection.agentId()).thenReturn(id);
        when(connection.send(any())).thenAnswer(call -> sent.add(id + " " + call.getArgument(0, AgentMessage.class)
                .getClass().getSimpleName()));
        when(registry.get(id)).thenReturn(Optional.of(connection));
        return connection;
    }

    private PairRuns runToRunStep(Duration runTimeout, Map<String, Object> params) {
        PairRuns pairs = new PairRuns(registry, outcomes, queue, scheduler, runTimeout);
        pairs.begin(new RunQueue.Assignment(RUN, 1, params), agent("client"), agent("server"));
        pairs.on("server", new AgentMessage.Prepared(RUN, "server-endpoint"));
        pairs.on("client", new AgentMessage.Prepared(RUN, "client-endpoint"));
        pairs.on("server", new AgentMessage.Connected(RUN));
        pairs.on("client", new AgentMessage.Connected(RUN));
        pairs.on("server", new AgentMessage.RunStarted(RUN));
        pairs.on("client", new AgentMessage.RunStarted(RUN));
        assertThat(sent).contains("client StartRun", "server StartRun");
        return pairs;
    }

    @Test
    void aRunByIterationsThatOutlivesTheRunTimeoutFailsNamingTheLimitAndStopsBothSides() throws Exception {
        PairRuns pairs = runToRunStep(Duration.ofMillis(200), Map.of("iterations", 1_000_000));

        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());

        Thread.sleep(300);
        pairs.expire();
        verify(outcomes).failed(eq(RUN), eq("client"),
                contains("run timed out after 0 s (qplab.schedule.run-timeout), waiting for client client to end the run"),
                eq(false));
        assertThat(sent).contains("client CancelRun", "server CancelRun");
        assertThat(pairs.owns(RUN)).as("late messages of the run are still recognised").isTrue();
    }

    @Test
    void aRunThatEndsInTimeIsNotTouchedByTheLimit() throws Exception {
        PairRuns pairs = runToRunStep(Duration.ofMillis(200), Map.of("iterations", 10));
        pairs.on("client", new AgentMessage.RunFinished(RUN, Map.of("cycles", 10), 1));
        pairs.on("server", new AgentMessage.RunFinished(RUN, Map.of("cycles", 0), 0));

        Thread.sleep(300);
        pairs.expire();
        verify(outcomes).finished(eq(RUN), eq("client"), any(), eq(1L));
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());
        assertThat(sent).doesNotContain("client CancelRun", "server CancelRun");
    }

    @Test
    void aDurationRunGetsItsDurationNotTheRunTimeout() throws Exception {
        PairRuns pairs = runToRunStep(Duration.ofMillis(100), Map.of("duration_ms", 60_000));

        Thread.sleep(300);
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());
    }

    @Test
    void refusesANonPositiveRunTimeoutOrNoTryAtAll() {
        assertThatThrownBy(() -> new ScheduleProperties(Duration.ZERO, 3))
                .hasMessageContaining("qplab.schedule.run-timeout must be positive");
        assertThatThrownBy(() -> new ScheduleProperties(Duration.ofMinutes(30), 0))
                .hasMessage("qplab.schedule.max-attempts must be at least 1, got 0");
    }

    @Test
    void aStepThatTimesOutFailsTheRunAsOneThatMayBeTriedAgain() throws Exception {
        PairRuns pairs = new PairRuns(registry, outcomes, queue, scheduler, Duration.ofMinutes(30));
        pairs.begin(new RunQueue.Assignment(RUN, 1, Map.of()), agent("client"), agent("server"));
        pairs.on("server", new AgentMessage.Prepared(RUN, "server-endpoint"));

        pairs.lost(RUN, "agent client disconnected during the run and did not come back within 60 s");

        verify(outcomes).failed(eq(RUN), eq("client"), contains("agent client disconnected"), eq(true));
        assertThat(sent).contains("client CancelRun", "server CancelRun");
        assertThat(pairs.owns(RUN)).isTrue();
    }

    @Test
    void aPairRunAdoptedAfterAControllerRestartEndsWhenItsSidesReportTheirEnds() {
        PairRuns pairs = new PairRuns(registry, outcomes, queue, scheduler, Duration.ofMinutes(30));
        agent("client");
        agent("server");
        pairs.adopt(new RunQueue.Running(RUN, "client", "server", false, Map.of("iterations", 10)));
        assertThat(pairs.owns(RUN)).isTrue();

        pairs.on("server", new AgentMessage.RunFinished(RUN, Map.of("cycles", 0), 0));
        pairs.on("client", new AgentMessage.RunFinished(RUN, Map.of("cycles", 10), 3));

        verify(queue).serverEnded(eq(RUN), eq("server"), eq(Map.of("cycles", 0)));
        verify(outcomes).finished(eq(RUN), eq("client"), eq(Map.of("cycles", 10)), eq(3L));
        assertThat(sent).contains("client RunRecorded", "server RunRecorded").doesNotContain("client CancelRun");
    }
}
