package org.qplab.controller.schedule;

import java.util.List;
import java.util.Map;
import org.qplab.controller.agent.AgentRuns;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * What agents say about their runs ({@link AgentRuns}, from the gateway): a returning agent's runs go to
 * {@link RunRecovery}, a pair's steps to {@link PairRuns} (or, for a pair another controller drives, to that one
 * through {@link PairRelay}), the end of a run an agent ran alone to {@link RunOutcomes}.
 */
@Component
class RunReports implements AgentRuns {

    private static final Logger log = LoggerFactory.getLogger(RunReports.class);

    private final PairRuns pairs;
    private final RunOutcomes outcomes;
    private final RunQueue queue;
    private final RunRecovery recovery;
    private final PairRelay relay;

    RunReports(PairRuns pairs, RunOutcomes outcomes, RunQueue queue, RunRecovery recovery, PairRelay relay) {
        this.relay = relay;
        this.pairs = pairs;
        this.outcomes = outcomes;
        this.queue = queue;
        this.recovery = recovery;
    }

    @Override
    public Returned returned(String agentId, Long currentRun, Long preparedRun, List<Long> knownRuns) {
        return recovery.agentReturned(agentId, currentRun, preparedRun, knownRuns);
    }

    @Override
    public boolean report(String agentId, AgentMessage.RunMessage message) {
        if (!pairs.owns(message.runId()) && relay.fromAgent(agentId, message)) {
            return false; // a pair run another controller drives: it answers, through the relay
        }
        if (pairs.owns(message.runId()) || message instanceof AgentMessage.Prepared
                || message instanceof AgentMessage.Connected) {
            pairs.on(agentId, message);
            return false;
        }
        if (message instanceof AgentMessage.RunFinished end) {
            outcomes.finished(end.runId(), agentId, end.summary(), end.batches());
            queue.serverEnded(end.runId(), agentId, end.summary()); // the server side of a pair nobody drives now
            return true;
        }
        if (message instanceof AgentMessage.RunFailed end) {
            outcomes.failed(end.runId(), agentId, end.error(), Boolean.TRUE.equals(end.retryable()));
            queue.serverEnded(end.runId(), agentId, Map.of("error", end.error()));
            return true;
        }
        if (message instanceof AgentMessage.RunStarted started) {
            log.info("run {} started on {}", started.runId(), agentId);
        } else {
            log.warn("agent {} sent an unexpected {}", agentId, message.getClass().getSimpleName());
        }
        return false;
    }
}
