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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.protocol.AgentMessage;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Every step of a pair run is bounded: a step that does not complete in time fails the run with the step, the
 * limit and the side it waited for named, and both sides are told to stop; a run by iterations that does not end
 * within qplab.schedule.run-timeout likewise. The agents, the database and the scheduler are stand-ins here; the
 * steps are driven as the agents would drive them, and time passes on a clock of the test's own.
 */
class PairRunsTests {

    private static final long RUN = 42;

    private final AgentRegistry registry = mock(AgentRegistry.class);
    private final RunOutcomes outcomes = mock(RunOutcomes.class);
    private final RunQueue queue = mock(RunQueue.class);
    private final ApplicationEventPublisher events = mock(ApplicationEventPublisher.class);
    private final List<String> sent = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private void pass(Duration time) {
        clock.addAndGet(time.toNanos());
    }

    private PairRuns pairRuns(Duration runTimeout) {
        return new PairRuns(registry, outcomes, queue, events, runTimeout, clock::get);
    }

    private AgentConnection agent(String id) {
        AgentConnection connection = mock(AgentConnection.class);
        when(connection.agentId()).thenReturn(id);
        when(connection.send(any())).thenAnswer(call -> sent.add(id + " " + call.getArgument(0, AgentMessage.class)
                .getClass().getSimpleName()));
        when(registry.get(id)).thenReturn(Optional.of(connection));
        return connection;
    }

    private PairRuns runToRunStep(Duration runTimeout, Map<String, Object> params) {
        PairRuns pairs = pairRuns(runTimeout);
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
    void aRunByIterationsThatOutlivesTheRunTimeoutFailsNamingTheLimitAndStopsBothSides() {
        PairRuns pairs = runToRunStep(Duration.ofSeconds(200), Map.of("iterations", 1_000_000));

        pass(Duration.ofSeconds(199));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());

        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(eq(RUN), eq("client"),
                contains("run timed out after 200 s (qplab.schedule.run-timeout), waiting for client client to end the run"),
                eq(false));
        assertThat(sent).contains("client CancelRun", "server CancelRun");
        assertThat(pairs.owns(RUN)).as("late messages of the run are still recognised").isTrue();
    }

    @Test
    void aRunThatEndsInTimeIsNotTouchedByTheLimit() {
        PairRuns pairs = runToRunStep(Duration.ofSeconds(200), Map.of("iterations", 10));
        pairs.on("client", new AgentMessage.RunFinished(RUN, Map.of("cycles", 10), 1));
        pairs.on("server", new AgentMessage.RunFinished(RUN, Map.of("cycles", 0), 0));

        pass(Duration.ofSeconds(300));
        pairs.expire();
        verify(outcomes).finished(eq(RUN), eq("client"), any(), eq(1L));
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());
        assertThat(sent).doesNotContain("client CancelRun", "server CancelRun");
    }

    @Test
    void aDurationRunGetsItsDurationNotTheRunTimeout() {
        PairRuns pairs = runToRunStep(Duration.ofSeconds(10), Map.of("duration_ms", 60_000));

        pass(Duration.ofSeconds(60 + 59));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());

        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(eq(RUN), eq("client"), contains("run timed out after 120 s (duration_ms + 60 s)"), eq(false));
    }

    @Test
    void anNvmeofRunGetsItsRuntimePlusSetUpAndCollectNotTheEnginesDuration() {
        PairRuns pairs = runToRunStep(Duration.ofSeconds(10), Map.of("provider", "nvmeof", "runtime_ms", 20_000,
                "duration_ms", 1));

        pass(Duration.ofSeconds(20 + 30 + 59));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());

        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(eq(RUN), eq("client"), contains("run timed out after 110 s (runtime_ms + 30 s + 60 s)"),
                eq(false));
    }

    @Test
    void anNvmeofRunsLimitFollowsFiosDefaultRuntimeOrTheRunTimeoutWhenSized() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        assertThat(pairs.runLimit(Map.of("provider", "nvmeof"))).as("fio's default 10 s runtime")
                .isEqualTo(Duration.ofSeconds(10 + 30 + 60));
        assertThat(pairs.runLimit(Map.of("provider", "nvmeof", "size", 1L << 30))).as("by size: not time based")
                .isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void refusesANonPositiveRunTimeoutOrNoTryAtAll() {
        assertThatThrownBy(() -> new ScheduleProperties(Duration.ZERO, 3, Duration.ofSeconds(2)))
                .hasMessageContaining("qplab.schedule.run-timeout must be positive");
        assertThatThrownBy(() -> new ScheduleProperties(Duration.ofMinutes(30), 0, Duration.ofSeconds(2)))
                .hasMessage("qplab.schedule.max-attempts must be at least 1, got 0");
    }

    @Test
    void aStepThatTimesOutFailsTheRunNamingTheStepAndTheSideAsOneThatMayBeTriedAgain() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        pairs.begin(new RunQueue.Assignment(RUN, 1, Map.of()), agent("client"), agent("server"));
        pairs.on("server", new AgentMessage.Prepared(RUN, "server-endpoint"));

        pass(PairRuns.Step.PREPARE.timeout().minusSeconds(1));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());
        assertThat(sent).doesNotContain("client CancelRun", "server CancelRun");

        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(RUN, "client", "prepare timed out after 30 s, waiting for client client to create its session",
                true);
        assertThat(sent).contains("client CancelRun", "server CancelRun").doesNotContain("client ConnectRun");
        assertThat(pairs.owns(RUN)).as("late messages of the run are still recognised").isTrue();
        pairs.on("client", new AgentMessage.Prepared(RUN, "client-endpoint"));
        assertThat(sent).as("a side that prepares too late is told to drop its session")
                .containsSubsequence("client CancelRun", "client CancelRun");
    }

    @Test
    void anNvmeofRunMayTakeLongerToPrepare() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        pairs.begin(new RunQueue.Assignment(RUN, 1, Map.of("provider", "nvmeof")), agent("client"), agent("server"));
        pass(Duration.ofSeconds(89));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());
        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(RUN, "client", "prepare timed out after 90 s, waiting for client client and server "
                + "server to create its session", true);
    }

    @Test
    void theConnectStepHasItsOwnTimeoutFromWhenBothSidesPrepared() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        pairs.begin(new RunQueue.Assignment(RUN, 1, Map.of()), agent("client"), agent("server"));
        pass(PairRuns.Step.PREPARE.timeout().minusSeconds(1));
        pairs.on("server", new AgentMessage.Prepared(RUN, "server-endpoint"));
        pairs.on("client", new AgentMessage.Prepared(RUN, "client-endpoint"));
        pairs.on("server", new AgentMessage.Connected(RUN));

        pass(PairRuns.Step.CONNECT.timeout().minusSeconds(1));
        pairs.expire();
        verify(outcomes, never()).failed(anyLong(), anyString(), anyString(), anyBoolean());

        pass(Duration.ofSeconds(2));
        pairs.expire();
        verify(outcomes).failed(RUN, "client", "connect timed out after 60 s, waiting for client client to connect", true);
        assertThat(sent).contains("client CancelRun", "server CancelRun");
    }

    @Test
    void aSideThatIsLostFailsTheRunAsOneThatMayBeTriedAgain() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        pairs.begin(new RunQueue.Assignment(RUN, 1, Map.of()), agent("client"), agent("server"));
        pairs.on("server", new AgentMessage.Prepared(RUN, "server-endpoint"));

        pairs.lost(RUN, "agent client disconnected during the run and did not come back within 60 s");

        verify(outcomes).failed(eq(RUN), eq("client"), contains("agent client disconnected"), eq(true));
        assertThat(sent).contains("client CancelRun", "server CancelRun");
        assertThat(pairs.owns(RUN)).isTrue();
    }

    @Test
    void aPairRunAdoptedAfterAControllerRestartEndsWhenItsSidesReportTheirEnds() {
        PairRuns pairs = pairRuns(Duration.ofMinutes(30));
        agent("client");
        agent("server");
        pairs.adopt(new RunQueue.Running(RUN, "client", "server", false, Map.of("iterations", 10), null));
        assertThat(pairs.owns(RUN)).isTrue();

        pairs.on("server", new AgentMessage.RunFinished(RUN, Map.of("cycles", 0), 0));
        pairs.on("client", new AgentMessage.RunFinished(RUN, Map.of("cycles", 10), 3));

        verify(queue).serverEnded(eq(RUN), eq("server"), eq(Map.of("cycles", 0)));
        verify(outcomes).finished(eq(RUN), eq("client"), eq(Map.of("cycles", 10)), eq(3L));
        assertThat(sent).contains("client RunRecorded", "server RunRecorded").doesNotContain("client CancelRun");
    }
}
