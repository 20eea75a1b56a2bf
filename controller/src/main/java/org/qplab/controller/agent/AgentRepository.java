package org.qplab.controller.agent;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.controller.cluster.ControllerNode;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** Agents as registered in PostgreSQL. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class AgentRepository implements SchedulingConfigurer {

    /** An agent as the API shows it. */
    public record AgentRow(String id, String hostname, Map<String, Object> facts, boolean connected,
                           OffsetDateTime registeredAt, OffsetDateTime lastHeartbeat) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;
    private final AgentProperties properties;
    private final ControllerNode node;
    /** Heartbeats not stored yet: agent id to System.nanoTime() of the latest. */
    private final ConcurrentHashMap<String, Long> heard = new ConcurrentHashMap<>();

    public AgentRepository(JdbcClient jdbc, ObjectMapper json, AgentProperties properties, ControllerNode node) {
        this.jdbc = jdbc;
        this.node = node;
        this.json = json;
        this.properties = properties;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(this::writeHeartbeats, properties.heartbeatWrite());
    }

    /** The agent registered on this controller. */
    public void registered(String id, Map<String, Object> facts) {
        Object hostname = facts.getOrDefault("hostname", id);
        jdbc.sql("""
                INSERT INTO agent (id, hostname, facts, connected, registered_at, last_heartbeat, controller_id)
                VALUES (?, ?, CAST(? AS jsonb), true, now(), now(), ?)
                ON CONFLICT (id) DO UPDATE SET hostname = excluded.hostname, facts = excluded.facts,
                    connected = true, registered_at = now(), last_heartbeat = now(),
                    controller_id = excluded.controller_id""")
                .params(id, String.valueOf(hostname), json.writeValueAsString(facts), node.id()).update();
    }

    /**
     * Notes an agent's heartbeat. Not a transaction per heartbeat: 50 agents beating every second were 50
     * commits a second, each agent's stream of frames waiting behind its own (bench/ingest: seconds of
     * latency). {@link #writeHeartbeats} stores them together; reading the table through {@link #list}
     * or disconnecting stores them first.
     */
    public void heartbeat(String id) {
        heard.put(id, System.nanoTime());
    }

    /** Stores the heartbeats noted since the last call, each at the time it arrived, in one statement. */
    public void writeHeartbeats() {
        List<String> ids = new ArrayList<>();
        List<Double> ages = new ArrayList<>();
        long now = System.nanoTime();
        for (String id : List.copyOf(heard.keySet())) {
            Long at = heard.remove(id);
            if (at != null) {
                ids.add(id);
                ages.add((now - at) / 1e9);
            }
        }
        if (!ids.isEmpty()) {
            jdbc.sql("""
                    UPDATE agent a SET last_heartbeat = greatest(a.last_heartbeat, now() - make_interval(secs => h.age))
                    FROM unnest(?::text[], ?::float8[]) AS h(id, age) WHERE a.id = h.id""")
                    .params(ids.toArray(String[]::new), ages.stream().mapToDouble(Double::doubleValue).toArray())
                    .update();
        }
    }

    /**
     * The agent's link to this controller closed. Not when it has registered on another controller since (it failed
     * over): that one's link is the live one.
     */
    public void disconnected(String id) {
        Long at = heard.remove(id);
        double age = at == null ? -1 : (System.nanoTime() - at) / 1e9;
        jdbc.sql("""
                UPDATE agent SET connected = false, last_heartbeat = CASE WHEN ? < 0 THEN last_heartbeat
                    ELSE greatest(last_heartbeat, now() - make_interval(secs => ?)) END
                WHERE id = ? AND controller_id IS NOT DISTINCT FROM ?""").params(age, age, id, node.id()).update();
    }

    /** Whose a run is, seen from one agent. */
    public enum Assignment {
        /** the agent runs it on loopback, or is the client or server of its pair */
        MINE,
        /** another agent's, or nobody's yet */
        OTHERS,
        /** no such run (its experiment was deleted): what an agent still holds of it is dropped */
        GONE
    }

    public Assignment assignment(String agentId, long runId) {
        return jdbc.sql("SELECT coalesce(agent_id = ? OR server_agent_id = ?, false) FROM run WHERE id = ?")
                .params(agentId, agentId, runId).query(Boolean.class).optional()
                .map(mine -> Boolean.TRUE.equals(mine) ? Assignment.MINE : Assignment.OTHERS).orElse(Assignment.GONE);
    }

    /**
     * At controller start no agent is connected to it yet, whatever the table says (a killed controller left its
     * agents marked connected); agents connected to another controller that is alive stay so.
     */
    public void allDisconnected() {
        jdbc.sql("UPDATE agent SET connected = false WHERE connected AND (controller_id IS NULL OR controller_id NOT IN ("
                + node.aliveSql() + "))").update();
    }

    /** The controller agentId's live link is on, when it is connected to one that is alive (this one included). */
    public java.util.Optional<String> controllerOf(String agentId) {
        return jdbc.sql("SELECT controller_id FROM agent WHERE id = ? AND connected AND controller_id IN ("
                + node.aliveSql() + ")").param(agentId).query(String.class).optional();
    }

    @SuppressWarnings("unchecked")
    public List<AgentRow> list() {
        writeHeartbeats();
        return jdbc.sql("SELECT id, hostname, facts::text, connected, registered_at, last_heartbeat FROM agent ORDER BY id")
                .query((rs, i) -> new AgentRow(rs.getString(1), rs.getString(2), json.readValue(rs.getString(3), Map.class),
                        rs.getBoolean(4), rs.getObject(5, OffsetDateTime.class), rs.getObject(6, OffsetDateTime.class)))
                .list();
    }
}
