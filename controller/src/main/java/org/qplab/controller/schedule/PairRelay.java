package org.qplab.controller.schedule;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.qplab.controller.agent.AgentConnection;
import org.qplab.controller.agent.AgentReady;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.agent.AgentRepository;
import org.qplab.controller.cluster.ControllerNode;
import org.qplab.protocol.AgentMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectMapper;

/**
 * Pair runs whose two hosts are on different controllers. The controller of the client drives the pair
 * ({@link PairRuns}, in its memory, as for any pair); what it says to the server goes through the database to the
 * controller the server's link is on, which hands it to the agent, and what the server says about the run comes back
 * the same way. A message is a row of controller_message, addressed to a controller, and a {@code NOTIFY
 * qplab_relay} with that controller's id wakes it; it takes (deletes) its rows in order and delivers them.
 *
 * <p>Why a table and NOTIFY rather than either alone: NOTIFY is immediate (a pair's steps are barriers, each one
 * waiting for both hosts: a polled table would add its poll interval to every step), but a notification is lost when
 * nobody listens at that moment (the listening connection is being reopened), and its payload is limited; a row waits
 * until it is taken, and is taken over with the run when its controller dies (see {@link #takeOver}). So the row
 * carries the message and the notification only says "look now"; a controller also looks every second whatever it
 * heard. The listening connection is one of the pool's, held for as long as the controller runs.
 */
@Component
public class PairRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PairRelay.class);
    private static final String CHANNEL = "qplab_relay";
    /** How long the listener waits for a notification before it looks at its rows anyway. */
    private static final int LOOK_ANYWAY_MS = 1000;

    /** Where messages of agents for the pairs this controller drives go: {@link PairRuns#on}. */
    interface Receiver {
        void fromAgent(String agentId, AgentMessage.RunMessage message);
    }

    private final JdbcClient jdbc;
    private final DataSource dataSource;
    private final ObjectMapper json;
    private final AgentRegistry registry;
    private final AgentRepository agents;
    private final ControllerNode node;
    private final ApplicationEventPublisher events;
    private volatile Receiver receiver;
    /** Agents here that a pair driven elsewhere holds busy (its prepare came through the relay), with the run. */
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    private volatile boolean running;
    private Thread listener;

    public PairRelay(JdbcClient jdbc, DataSource dataSource, ObjectMapper json, AgentRegistry registry,
                     AgentRepository agents, ControllerNode node, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.dataSource = dataSource;
        this.json = json;
        this.registry = registry;
        this.agents = agents;
        this.node = node;
        this.events = events;
    }

    void receiver(Receiver receiver) {
        this.receiver = receiver;
    }

    /**
     * Sends message about its run to agentId through the controller its link is on. False when it is connected to no
     * live controller. Blocking.
     */
    public boolean toAgent(String agentId, AgentMessage.RunMessage message) {
        return elsewhere(agentId).map(to -> post(to, agentId, message.runId(), "to_agent", message)).orElse(false);
    }

    /** The pair run is done with agentId: the controller its link is on frees it. Blocking. */
    public void release(String agentId, long runId) {
        elsewhere(agentId).ifPresent(to -> post(to, agentId, runId, "release", null));
    }

    /** Whether agentId's link is on another controller that is alive. Blocking. */
    public boolean connectedElsewhere(String agentId) {
        return elsewhere(agentId).isPresent();
    }

    /**
     * A message of agentId (connected here) about a pair run that another live controller drives: sent on to it.
     * False when the run is not a pair or this controller drives it, or its driver is gone. Blocking.
     */
    public boolean fromAgent(String agentId, AgentMessage.RunMessage message) {
        Optional<String> driver = jdbc.sql("SELECT controller_id FROM run WHERE id = ? AND server_agent_id IS NOT NULL "
                        + "AND controller_id <> ? AND controller_id IN (" + node.aliveSql() + ")")
                .params(message.runId(), node.id()).query(String.class).optional();
        driver.ifPresent(to -> post(to, agentId, message.runId(), "from_agent", message));
        return driver.isPresent();
    }

    /**
     * This controller took over runId from a controller that is gone: the messages its agents sent for it, which that
     * one never took, are this one's now (delivered at the next look, after the run is adopted here).
     */
    void takeOver(long runId, String from) {
        int moved = jdbc.sql("UPDATE controller_message SET to_controller = ? WHERE to_controller = ? AND run_id = ? "
                + "AND kind = 'from_agent'").params(node.id(), from, runId).update();
        if (moved > 0) {
            log.info("run {}: {} message(s) its agents sent for controller {} (gone) are delivered here", runId, moved,
                    from);
        }
    }

    private Optional<String> elsewhere(String agentId) {
        return agents.controllerOf(agentId).filter(to -> !to.equals(node.id()));
    }

    private boolean post(String to, String agentId, long runId, String kind, AgentMessage message) {
        jdbc.sql("INSERT INTO controller_message (to_controller, agent_id, run_id, kind, message) "
                        + "VALUES (?, ?, ?, ?, CAST(? AS jsonb))")
                .params(to, agentId, runId, kind, message == null ? null : json.writeValueAsString(message)).update();
        jdbc.sql("SELECT pg_notify(?, ?)").params(CHANNEL, to).query(Object.class).optional();
        return true;
    }

    private record Row(long id, String agentId, long runId, String kind, String message) {}

    /** Takes this controller's rows, oldest first, and delivers each. Blocking. */
    void look() {
        List<Row> rows = jdbc.sql("""
                        WITH taken AS (DELETE FROM controller_message WHERE to_controller = ?
                            RETURNING id, agent_id, run_id, kind, message::text)
                        SELECT * FROM taken ORDER BY id""")
                .param(node.id())
                .query((rs, i) -> new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5)))
                .list();
        for (Row row : rows) {
            try {
                deliver(row);
            } catch (RuntimeException e) {
                log.warn("run {}: could not deliver a relayed {} for {}: {}", row.runId(), row.kind(), row.agentId(),
                        e.toString());
            }
        }
    }

    private void deliver(Row row) {
        if (row.kind().equals("from_agent")) {
            AgentMessage.RunMessage message = (AgentMessage.RunMessage) json.readValue(row.message(), AgentMessage.class);
            Receiver to = receiver;
            if (to != null) {
                to.fromAgent(row.agentId(), message);
            }
            return;
        }
        Optional<AgentConnection> here = registry.connected(row.agentId()) ? registry.get(row.agentId()) : Optional.empty();
        if (row.kind().equals("release")) {
            held.remove(row.agentId(), row.runId());
            here.ifPresent(c -> {
                if (Long.valueOf(row.runId()).equals(c.busyWith())) {
                    c.busyWith(null);
                }
            });
            events.publishEvent(new AgentReady(row.agentId()));
            return;
        }
        AgentMessage.RunMessage message = (AgentMessage.RunMessage) json.readValue(row.message(), AgentMessage.class);
        if (here.isEmpty()) { // the agent moved on to another controller since: on to that one, if any
            if (!toAgent(row.agentId(), message)) {
                log.warn("run {}: could not hand a relayed {} to {}: not connected", row.runId(),
                        message.getClass().getSimpleName(), row.agentId());
            }
            return;
        }
        AgentConnection agent = here.get();
        if (message instanceof AgentMessage.PrepareRun) { // the pair takes this host: it is busy with the run
            agent.assigned(row.runId());
            agent.busyWith(row.runId());
            held.put(row.agentId(), row.runId());
        }
        agent.send(message);
    }

    /**
     * What a driver that died leaves behind, for the agents connected here; every scheduler tick. Blocking.
     * <ul>
     * <li>Messages addressed to a controller that is gone, about agents now connected here: what the driver had sent
     * them (they moved here since) is delivered; what they had sent it about a run that has ended since is answered
     * here as a late message (a run end is recorded beside the run and acknowledged, so the agent drops it). What
     * they sent about a run still RUNNING waits: its takeover moves it to the new driver.</li>
     * <li>Agents held busy here for a pair run driven elsewhere, whose run has ended, when its driver is gone (its
     * release will never come) or the run ended more than {@link #RELEASE_GRACE_SECONDS} s ago: freed, and told to
     * drop what is left of the run.</li>
     * </ul>
     */
    void sweep() {
        List<Row> rows = jdbc.sql("""
                        WITH taken AS (DELETE FROM controller_message m
                            WHERE m.to_controller <> ? AND m.to_controller NOT IN (%s)
                              AND m.agent_id IN (SELECT id FROM agent WHERE connected AND controller_id = ?)
                              AND (m.kind <> 'from_agent'
                                   OR NOT EXISTS (SELECT 1 FROM run r WHERE r.id = m.run_id AND r.status = 'RUNNING'))
                            RETURNING id, agent_id, run_id, kind, message::text)
                        SELECT * FROM taken ORDER BY id""".formatted(node.aliveSql()))
                .params(node.id(), node.id())
                .query((rs, i) -> new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5)))
                .list();
        for (Row row : rows) {
            log.info("run {}: a {} for agent {} addressed to a controller that is gone is handled here", row.runId(),
                    row.kind(), row.agentId());
            try {
                deliver(row);
            } catch (RuntimeException e) {
                log.warn("run {}: could not handle a {} left for a gone controller: {}", row.runId(), row.kind(),
                        e.toString());
            }
        }
        if (held.isEmpty()) {
            return;
        }
        Map<String, Long> now = Map.copyOf(held);
        List<Long> over = jdbc.sql("""
                        SELECT id FROM run WHERE id = ANY(?) AND status <> 'RUNNING'
                          AND (controller_id IS NULL OR controller_id NOT IN (%s)
                               OR finished_at < now() - make_interval(secs => ?))""".formatted(node.aliveSql()))
                .params(now.values().stream().distinct().toArray(Long[]::new), RELEASE_GRACE_SECONDS)
                .query(Long.class).list();
        now.forEach((agentId, runId) -> {
            if (!over.contains(runId) || !held.remove(agentId, runId)) {
                return;
            }
            registry.get(agentId).ifPresent(agent -> {
                if (runId.equals(agent.busyWith())) {
                    log.info("run {} has ended and its driver is gone: {} is free again", runId, agentId);
                    agent.send(new AgentMessage.CancelRun(runId)); // whatever is left of its side
                    agent.busyWith(null);
                }
            });
            events.publishEvent(new AgentReady(agentId));
        });
    }

    /**
     * agentId, connected here, stays busy with runId, a pair run another controller drives, until the driver's
     * release comes or {@link #sweep} finds the run ended (its driver gone, or the release overdue). For an agent that
     * came back here in the middle of such a run: were its driver to die after the run ended but before its release,
     * nothing else would free the agent.
     */
    void hold(String agentId, long runId) {
        held.put(agentId, runId);
    }

    /** The run is settled here now (its driver gone): this controller decides when agentId is free. */
    void unhold(String agentId, long runId) {
        held.remove(agentId, runId);
    }

    /**
     * Deletes the messages addressed to controllers that are gone, about runs that have ended, sent more than
     * {@link #STALE_AFTER_HOURS} h ago: those about agents that never came back to a controller, which {@link #sweep}
     * (run by the controller an agent comes back to) never takes. Nothing is lost: an agent that does come back still
     * holds what it had not had acknowledged, and replays it. On the leader, every scheduler tick. Blocking; the rows
     * deleted.
     */
    int forgetStale() {
        int gone = jdbc.sql("""
                        DELETE FROM controller_message m
                        WHERE m.to_controller <> ? AND m.to_controller NOT IN (%s)
                          AND m.sent_at < now() - make_interval(hours => ?)
                          AND NOT EXISTS (SELECT 1 FROM run r WHERE r.id = m.run_id AND r.status = 'RUNNING')"""
                        .formatted(node.aliveSql()))
                .params(node.id(), STALE_AFTER_HOURS).update();
        if (gone > 0) {
            log.info("deleted {} relayed messages for controllers gone over {} h ago, about runs that have ended "
                    + "(their agents never came back)", gone, STALE_AFTER_HOURS);
        }
        return gone;
    }

    /** How long a message addressed to a gone controller, about a run that has ended, waits for its agent. */
    static final int STALE_AFTER_HOURS = 1;

    /** How long after its run ended a host held for a pair driven elsewhere waits for the driver's release. */
    static final int RELEASE_GRACE_SECONDS = 120;

    private void listen() {
        while (running) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                try (Statement listen = connection.createStatement()) {
                    listen.execute("LISTEN " + CHANNEL);
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                look(); // what was posted while nobody listened
                while (running) {
                    PGNotification[] heard = pg.getNotifications(LOOK_ANYWAY_MS);
                    if (heard == null || heard.length == 0 || java.util.Arrays.stream(heard)
                            .anyMatch(n -> node.id().equals(n.getParameter()))) {
                        look();
                    }
                }
            } catch (Exception e) {
                if (running) {
                    log.warn("pair relay: listening for other controllers' messages failed, again in 1 s: {}", e.toString());
                    sleep();
                }
            }
        }
    }

    private static void sleep() {
        try {
            TimeUnit.SECONDS.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void start() {
        running = true;
        listener = new Thread(this::listen, "pair-relay");
        listener.setDaemon(true);
        listener.start();
    }

    @Override
    public synchronized void stop() {
        running = false;
        if (listener != null) {
            listener.interrupt();
            try {
                listener.join(TimeUnit.SECONDS.toMillis(3));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
