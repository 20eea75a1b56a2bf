package org.qplab.controller.schedule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.agent.AgentRuns.Returned;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Settles the runs the database says are running on an agent when that agent registers: after a broken
 * link, an agent restart or a controller restart. A run the agent still has goes on (a pair run whose
 * controller restarted is adopted in its run step) and its end arrives as usual; a run it no longer has,
 * or a pair run a restarted controller cannot resume (it was still being set up), fails with the reason
 * and is tried again when tries are left. Never silently lost: every RUNNING run ends one way or the other.
 */
@Component
public class RunRecovery {

    private static final Logger log = LoggerFactory.getLogger(RunRecovery.class);

    private final RunQueue queue;
    private final RunOutcomes outcomes;
    private final PairRuns pairs;
    private final AgentRegistry registry;

    public RunRecovery(RunQueue queue, RunOutcomes outcomes, PairRuns pairs, AgentRegistry registry) {
        this.queue = queue;
        this.outcomes = outcomes;
        this.pairs = pairs;
        this.registry = registry;
    }

    /**
     * agentId registers, running currentRun, with preparedRun set up but not started, holding knownRuns (its
     * outbox too). Blocking. The agent stays busy with what its engine holds, and with a pair run still in
     * flight here (both hosts of a pair are reserved until the pair is done, as when nothing broke).
     */
    public Returned agentReturned(String agentId, Long currentRun, Long preparedRun, List<Long> knownRuns) {
        Set<Long> running = new HashSet<>();
        List<Long> cancel = new ArrayList<>();
        Long busy = null;
        for (RunQueue.Running run : queue.runningOn(agentId)) {
            running.add(run.runId());
            boolean isClient = agentId.equals(run.client());
            boolean pair = run.server() != null;
            boolean prepared = Objects.equals(preparedRun, run.runId());
            boolean holds = Objects.equals(currentRun, run.runId()) || knownRuns.contains(run.runId());
            if (pair && pairs.owns(run.runId())) {
                if (!holds && (isClient || !run.serverEnded())) { // an ended server side need not hold it
                    pairs.lost(run.runId(), "agent " + agentId + " came back without the run (it was restarted); "
                            + "the frames sent before are kept");
                } else {
                    busy = run.runId(); // a broken link: the pair goes on, this host stays reserved for it
                }
                continue;
            }
            if (!isClient && run.serverEnded()) {
                continue; // this side is done; the client's end decides
            }
            if (holds && !prepared) {
                if (pair) {
                    pairs.adopt(run);
                    busy = run.runId();
                }
                continue;
            }
            String reason = prepared
                    ? "interrupted: the controller restarted while the run was being set up on " + agentId
                    : "agent " + agentId + " came back without the run (it was restarted during it); "
                            + "the frames it had sent are kept";
            log.warn("run {}: {}", run.runId(), reason);
            outcomes.failed(run.runId(), run.client(), reason, true);
            if (prepared) {
                cancel.add(run.runId());
            }
            if (pair) {
                String other = isClient ? run.server() : run.client();
                registry.get(other).ifPresent(c -> c.send(new AgentMessage.CancelRun(run.runId())));
            }
        }
        for (Long held : new Long[] {currentRun, preparedRun}) {
            if (held != null && !running.contains(held) && !cancel.contains(held)) {
                log.info("agent {} still holds run {}, which has ended here: telling it to stop", agentId, held);
                cancel.add(held);
            }
        }
        if (busy == null) {
            busy = currentRun != null ? currentRun : preparedRun; // its engine is on it until it reports the end
        }
        return new Returned(cancel, busy);
    }
}
