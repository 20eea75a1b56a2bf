package org.qplab.controller.schedule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentReady;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.agent.AgentRuns.Returned;
import org.qplab.controller.cluster.ControllerNode;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;

/**
 * Settles the runs the database says are running on an agent when that agent registers: after a broken
 * link, an agent restart or a controller restart. A run the agent still has goes on (a pair run whose
 * controller restarted is adopted in its run step) and its end arrives as usual; a run it no longer has,
 * or a pair run a restarted controller cannot resume (it was still being set up), fails with the reason
 * and is tried again when tries are left. Never silently lost: every RUNNING run ends one way or the other.
 *
 * <p>With several controllers, an agent may come back to another controller than the one that drives its pair run
 * (it failed over). While that driver is alive, the run goes on from there ({@link PairRelay} carries its messages);
 * when the agent no longer has the run, the driver hears that as the agent's failure. Once the driver is gone (a
 * killed controller: no heartbeat for qplab.cluster.dead-after), {@link #recheck} takes the run over here and settles
 * it as above, from what the agent said when it came back.
 */
@Component
public class RunRecovery {

    private static final Logger log = LoggerFactory.getLogger(RunRecovery.class);

    private final RunQueue queue;
    private final RunOutcomes outcomes;
    private final PairRuns pairs;
    private final AgentRegistry registry;
    private final ControllerNode node;
    private final PairRelay relay;
    private final ApplicationEventPublisher events;

    /** What an agent said when it came back here, holding a pair run another controller drove then. */
    private record Returning(String agentId, long runId, Long currentRun, Long preparedRun, List<Long> knownRuns) {}

    /** By run id and agent id: the pair runs of returned agents that another controller drives. */
    private final Map<String, Returning> drivenElsewhere = new ConcurrentHashMap<>();

    public RunRecovery(RunQueue queue, RunOutcomes outcomes, PairRuns pairs, AgentRegistry registry, ControllerNode node,
                       PairRelay relay, ApplicationEventPublisher events) {
        this.queue = queue;
        this.outcomes = outcomes;
        this.pairs = pairs;
        this.registry = registry;
        this.node = node;
        this.relay = relay;
        this.events = events;
    }

    /**
     * agentId registers, running currentRun, with preparedRun set up but not started, holding knownRuns (its
     * outbox too). Blocking. The agent stays busy with what its engine holds, and with a pair run still in
     * flight (both hosts of a pair are reserved until the pair is done, as when nothing broke).
     */
    public Returned agentReturned(String agentId, Long currentRun, Long preparedRun, List<Long> knownRuns) {
        Set<Long> running = new HashSet<>();
        List<Long> cancel = new ArrayList<>();
        Long busy = null;
        for (RunQueue.Running run : queue.runningOn(agentId)) {
            running.add(run.runId());
            boolean holds = Objects.equals(currentRun, run.runId()) || Objects.equals(preparedRun, run.runId())
                    || knownRuns.contains(run.runId());
            if (run.server() != null && !pairs.owns(run.runId()) && run.controller() != null
                    && !run.controller().equals(node.id()) && node.alive(run.controller())) {
                if (holds) {
                    drivenElsewhere.put(run.runId() + ":" + agentId,
                            new Returning(agentId, run.runId(), currentRun, preparedRun, knownRuns));
                    relay.hold(agentId, run.runId()); // freed by the driver's release, or by the sweep
                    busy = run.runId();
                    log.info("run {}: agent {} came back here with it; controller {} drives it, from there it goes on",
                            run.runId(), agentId, run.controller());
                } else if (agentId.equals(run.client()) || !run.serverEnded()) {
                    relay.fromAgent(agentId, new AgentMessage.RunFailed(run.runId(), "agent " + agentId
                            + " came back without the run (it was restarted); the frames sent before are kept", 0, true));
                    // its driver may be dying (a claim it made just before, never prepared): if it is gone before it
                    // takes the failure, the run is failed here (recheck), else it would stay RUNNING for good
                    drivenElsewhere.put(run.runId() + ":" + agentId,
                            new Returning(agentId, run.runId(), currentRun, preparedRun, knownRuns));
                }
                continue;
            }
            Long held = settle(agentId, run, currentRun, preparedRun, knownRuns, cancel);
            if (held != null) {
                busy = held;
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

    /**
     * The pair runs of agents that came back here while another controller drove them: a run that ended is
     * forgotten; one whose driver is gone is settled as if the agent had come back now (a pair it still runs is taken
     * over, once, by whichever of its agents' controllers gets there first). Blocking; every scheduler tick.
     */
    void recheck() {
        for (Returning returning : List.copyOf(drivenElsewhere.values())) {
            String key = returning.runId() + ":" + returning.agentId();
            Optional<RunQueue.Running> run = queue.running(returning.runId());
            if (run.isEmpty()) {
                drivenElsewhere.remove(key);
                continue;
            }
            String driver = run.get().controller();
            if (!node.id().equals(driver) && driver != null && node.alive(driver)) {
                continue; // it goes on from there
            }
            if (!node.id().equals(driver)) {
                log.warn("run {}: controller {}, which drove it, is gone: settling it here, where agent {} came back",
                        returning.runId(), driver, returning.agentId());
            }
            drivenElsewhere.remove(key);
            relay.unhold(returning.agentId(), returning.runId());
            List<Long> cancel = new ArrayList<>();
            Long busy = settle(returning.agentId(), run.get(), returning.currentRun(), returning.preparedRun(),
                    returning.knownRuns(), cancel);
            Optional<AgentConnection> agent = registry.get(returning.agentId());
            agent.ifPresent(a -> cancel.forEach(id -> a.send(new AgentMessage.CancelRun(id))));
            if (busy == null && !pairs.owns(returning.runId())) {
                agent.filter(a -> Long.valueOf(returning.runId()).equals(a.busyWith())).ifPresent(a -> a.busyWith(null));
                events.publishEvent(new AgentReady(returning.agentId()));
            }
        }
    }

    /** One run RUNNING on a returning agent, driven here (or by nobody alive): returns the run when it stays busy. */
    private Long settle(String agentId, RunQueue.Running run, Long currentRun, Long preparedRun, List<Long> knownRuns,
                        List<Long> cancel) {
        boolean isClient = agentId.equals(run.client());
        boolean pair = run.server() != null;
        boolean prepared = Objects.equals(preparedRun, run.runId());
        boolean holds = Objects.equals(currentRun, run.runId()) || knownRuns.contains(run.runId());
        if (pair && pairs.owns(run.runId())) {
            if (!holds && (isClient || !run.serverEnded())) { // an ended server side need not hold it
                pairs.lost(run.runId(), "agent " + agentId + " came back without the run (it was restarted); "
                        + "the frames sent before are kept");
                return null;
            }
            return run.runId(); // a broken link: the pair goes on, this host stays reserved for it
        }
        if (!isClient && run.serverEnded()) {
            return null; // this side is done; the client's end decides
        }
        if (holds && !prepared) {
            if (pair) {
                if (!node.id().equals(run.controller()) && !queue.takeOver(run.runId(), run.controller())) {
                    // its other host's controller took it over first: from there it goes on
                    drivenElsewhere.put(run.runId() + ":" + agentId,
                            new Returning(agentId, run.runId(), currentRun, preparedRun, knownRuns));
                    relay.hold(agentId, run.runId());
                    return run.runId();
                }
                pairs.adopt(run);
                if (run.controller() != null && !node.id().equals(run.controller())) {
                    // after the adoption: what its agents sent the gone driver now reaches the pair here
                    relay.takeOver(run.runId(), run.controller());
                }
                return run.runId();
            }
            return null;
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
            if (registry.get(other).map(c -> c.send(new AgentMessage.CancelRun(run.runId()))).orElse(false)) {
                return null;
            }
            relay.toAgent(other, new AgentMessage.CancelRun(run.runId()));
        }
        return null;
    }
}
