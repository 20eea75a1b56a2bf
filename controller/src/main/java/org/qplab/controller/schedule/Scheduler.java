package org.qplab.controller.schedule;

import java.util.concurrent.atomic.AtomicBoolean;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentProperties;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.ingest.RunOutcomes;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Lazy;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Hands queued runs to idle agents, one benchmark per agent at a time. Woken by every event that can
 * make work possible (a submission, an agent registering, a run ending) and every few seconds anyway;
 * one dispatch pass runs at a time.
 */
@Component
public class Scheduler {

    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

    private final Jdbc jdbc;
    private final RunQueue queue;
    private final RunOutcomes outcomes;
    private final AgentRegistry registry;
    private final AgentProperties properties;
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicBoolean dispatching = new AtomicBoolean();

    public Scheduler(Jdbc jdbc, RunQueue queue, RunOutcomes outcomes, @Lazy AgentRegistry registry,
                     AgentProperties properties) {
        this.jdbc = jdbc;
        this.queue = queue;
        this.outcomes = outcomes;
        this.registry = registry;
        this.properties = properties;
    }

    /** Asks for a dispatch pass soon; cheap, callable from any thread. */
    public void wake() {
        requested.set(true);
        if (dispatching.compareAndSet(false, true)) {
            jdbc.run(this::dispatchWhileRequested).subscribe(v -> { }, e -> log.warn("dispatch failed: {}", e.toString()));
        }
    }

    @Scheduled(fixedDelayString = "${qplab.schedule.tick:2s}")
    void tick() {
        jdbc.run(this::failOrphans).subscribe(v -> { }, e -> log.warn("orphan sweep failed: {}", e.toString()));
        wake();
    }

    private void dispatchWhileRequested() {
        try {
            while (requested.getAndSet(false)) {
                for (AgentConnection agent : registry.idle()) {
                    queue.claimNext(agent.agentId()).ifPresent(run -> assign(agent, run));
                }
            }
        } finally {
            dispatching.set(false);
            if (requested.get()) {
                wake();
            }
        }
    }

    private void assign(AgentConnection agent, RunQueue.Assignment run) {
        agent.busyWith(run.runId());
        if (agent.send(new AgentMessage.AssignRun(run.runId(), run.params()))) {
            log.info("run {} (experiment {}) assigned to {}", run.runId(), run.experimentId(), agent.agentId());
        } else {
            agent.busyWith(null);
            queue.requeue(run.runId(), agent.agentId());
        }
    }

    private void failOrphans() {
        for (RunQueue.Orphan orphan : queue.orphans(properties.lostAfter())) {
            outcomes.failed(orphan.runId(), orphan.agentId(), "agent " + orphan.agentId()
                    + " disconnected during the run and did not come back within " + properties.lostAfter().toSeconds() + " s");
        }
    }
}
