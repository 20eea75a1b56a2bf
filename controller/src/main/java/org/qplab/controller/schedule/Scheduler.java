package org.qplab.controller.schedule;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentProperties;
import org.qplab.controller.agent.AgentReady;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.database.SchemaVersion;
import org.qplab.controller.experiment.ExperimentQueued;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.provider.Providers;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Hands queued runs to idle agents, one benchmark per host at a time: loopback runs to one agent, pair
 * runs to two at once (driven by {@link PairRuns}). Woken by every event that can
 * make work possible (a submission, an agent registering, a run ending) and every few seconds anyway;
 * one dispatch pass runs at a time.
 */
@Component
public class Scheduler implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

    private final Jdbc jdbc;
    private final Leadership leadership;
    private final RunQueue queue;
    private final RunOutcomes outcomes;
    private final AgentRegistry registry;
    private final AgentProperties properties;
    private final ScheduleProperties schedule;
    private final PairRuns pairs;
    private final SchemaVersion schema;
    private final PairRelay relay;
    private final RunRecovery recovery;
    /** How many queued runs one dispatch pass looks at. */
    static final int QUEUE_WINDOW = 1000;
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicBoolean dispatching = new AtomicBoolean();
    /** When this controller started: agents get lost-after from here to come back before their runs are failed. */
    private final long startedAt = System.nanoTime();

    public Scheduler(Jdbc jdbc, RunQueue queue, RunOutcomes outcomes, AgentRegistry registry,
                     AgentProperties properties, ScheduleProperties schedule, PairRuns pairs, SchemaVersion schema,
                     PairRelay relay, RunRecovery recovery, Leadership leadership) {
        this.relay = relay;
        this.recovery = recovery;
        this.pairs = pairs;
        this.schema = schema;
        this.schedule = schedule;
        this.jdbc = jdbc;
        this.queue = queue;
        this.outcomes = outcomes;
        this.registry = registry;
        this.properties = properties;
        this.leadership = leadership;
    }

    /** Asks for a dispatch pass soon; cheap, callable from any thread. */
    public void wake() {
        requested.set(true);
        if (dispatching.compareAndSet(false, true)) {
            jdbc.run(this::dispatchWhileRequested).subscribe(v -> { }, e -> log.warn("dispatch failed: {}", e.toString()));
        }
    }

    /** An agent registered, or its run ended: it may take a queued run. */
    @EventListener
    public void ready(AgentReady ready) {
        wake();
    }

    /** A submission queued runs. */
    @EventListener
    public void queued(ExperimentQueued queued) {
        wake();
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(this::tick, schedule.tick());
    }

    void tick() {
        jdbc.run(this::failOrphans).subscribe(v -> { }, e -> log.warn("orphan sweep failed: {}", e.toString()));
        jdbc.run(pairs::expire).subscribe(v -> { }, e -> log.warn("pair-run timeout sweep failed: {}", e.toString()));
        jdbc.run(recovery::recheck).subscribe(v -> { }, e -> log.warn("recovery of runs other controllers drove failed: {}",
                e.toString()));
        jdbc.run(relay::sweep).subscribe(v -> { }, e -> log.warn("sweep of what gone controllers left failed: {}",
                e.toString()));
        if (leadership.leads()) {
            jdbc.run(relay::forgetStale).subscribe(v -> { }, e -> log.warn("deleting stale relayed messages failed: {}",
                    e.toString()));
        }
        wake();
    }

    private void dispatchWhileRequested() {
        try {
            while (requested.getAndSet(false)) {
                dispatch();
            }
        } finally {
            dispatching.set(false);
            if (requested.get()) {
                wake();
            }
        }
    }

    /** Whether the agent's host has what the run's provider needs, as its hello facts say. */
    private static boolean canRun(AgentConnection agent, Map<String, Object> params) {
        return Providers.of(params).hostRefusals(params, new ProviderSpec.Side("host", agent.agentId(), true),
                agent.facts()).isEmpty();
    }

    /**
     * One pass over the queue in order. A run takes its agents when they are idle; when they are busy,
     * they are held for it, so that no later run takes them first: a pair waiting for a busy host is
     * never starved by loopback runs behind it, and one pass never deadlocks (it waits for nothing). A
     * pair with a host that is not connected holds nothing: its partner is not kept idle for an absent host.
     * A pair whose server is on another controller is claimed by the client's controller, which drives it through
     * {@link PairRelay} (the claim fails while the server runs something there); one whose client is elsewhere is
     * left to that controller.
     */
    private void dispatch() {
        if (!schema.allowsScheduling()) {
            return; // a newer controller migrated the database: SchemaVersion said why
        }
        Map<String, AgentConnection> idle = new LinkedHashMap<>();
        registry.idle().forEach(a -> idle.put(a.agentId(), a));
        Set<String> held = new HashSet<>();
        Map<String, Boolean> elsewhere = new java.util.HashMap<>(); // this pass's answers: is a host on another controller
        java.util.function.Predicate<String> onAnother = agentId -> registry.get(agentId).isEmpty()
                && elsewhere.computeIfAbsent(agentId, relay::connectedElsewhere);
        for (RunQueue.Queued run : idle.isEmpty() ? List.<RunQueue.Queued>of() : queue.queued(QUEUE_WINDOW)) {
            if (idle.isEmpty()) {
                break;
            }
            if (run.client() == null) {
                // any agent that can: one whose host lacks what the run's provider needs (no RDMA device for a verbs
                // run, say) is passed over, and the run waits for one that can rather than fail on the wrong host
                idle.values().stream().filter(a -> !held.contains(a.agentId()) && canRun(a, run.params()))
                        .findFirst().ifPresent(agent -> {
                    idle.remove(agent.agentId());
                    queue.claim(run.runId(), agent.agentId(), null).ifPresent(a -> assign(agent, a));
                });
            } else if (run.server() == null) {
                AgentConnection agent = held.contains(run.client()) ? null : idle.get(run.client());
                if (agent != null) {
                    idle.remove(agent.agentId());
                    queue.claim(run.runId(), agent.agentId(), null).ifPresent(a -> assign(agent, a));
                } else {
                    held.add(run.client());
                }
            } else {
                AgentConnection client = held.contains(run.client()) ? null : idle.get(run.client());
                AgentConnection server = held.contains(run.server()) ? null : idle.get(run.server());
                if (client != null && server != null) {
                    idle.remove(client.agentId());
                    idle.remove(server.agentId());
                    queue.claim(run.runId(), client.agentId(), server.agentId()).ifPresent(a -> pairs.begin(a, client, server));
                } else if (client != null && !held.contains(run.server()) && onAnother.test(run.server())) {
                    idle.remove(client.agentId()); // held for this pair in this pass, whether the claim gets its server
                    queue.claim(run.runId(), client.agentId(), run.server())
                            .ifPresent(a -> pairs.begin(a, client, run.server(), null));
                } else if (registry.get(run.client()).isPresent() && registry.get(run.server()).isPresent()) {
                    held.add(run.client());
                    held.add(run.server());
                } // a host of the pair is not connected: hold nothing for it, its partner may work meanwhile
            }
        }
    }

    private void assign(AgentConnection agent, RunQueue.Assignment run) {
        agent.assigned(run.runId());
        agent.busyWith(run.runId());
        if (agent.send(new AgentMessage.AssignRun(run.runId(), run.params()))) {
            log.info("run {} (experiment {}) assigned to {}", run.runId(), run.experimentId(), agent.agentId());
        } else {
            agent.busyWith(null);
            queue.requeue(run.runId(), agent.agentId());
        }
    }

    /**
     * Fails (and, tries left, queues again) runs whose agent has been gone for lost-after. After a controller
     * restart every agent gets lost-after from the start to reconnect, however long the controller was down. Every
     * controller sweeps the runs it drives; those whose driver is gone are swept on the leader only
     * ({@link Leadership#leads()}), so that no run is failed twice.
     */
    private void failOrphans() {
        if (System.nanoTime() - startedAt < properties.lostAfter().toNanos()) {
            return;
        }
        for (RunQueue.Orphan orphan : queue.orphans(properties.lostAfter(), leadership.leads())) {
            String reason = "agent " + orphan.lostAgent() + " disconnected during the run and did not come back within "
                    + properties.lostAfter().toSeconds() + " s (qplab.agents.lost-after)";
            if (pairs.owns(orphan.runId())) {
                pairs.lost(orphan.runId(), reason);
            } else {
                outcomes.failed(orphan.runId(), orphan.agentId(), reason, true);
            }
        }
    }
}
