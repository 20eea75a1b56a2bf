package org.qplab.controller.agent;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** Agents as registered in PostgreSQL. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class AgentRepository {

    /** An agent as the API shows it. */
    public record AgentRow(String id, String hostname, Map<String, Object> facts, boolean connected,
                           OffsetDateTime registeredAt, OffsetDateTime lastHeartbeat) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public AgentRepository(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    public void registered(String id, Map<String, Object> facts) {
        Object hostname = facts.getOrDefault("hostname", id);
        jdbc.sql("""
                INSERT INTO agent (id, hostname, facts, connected, registered_at, last_heartbeat)
                VALUES (?, ?, CAST(? AS jsonb), true, now(), now())
                ON CONFLICT (id) DO UPDATE SET hostname = excluded.hostname, facts = excluded.facts,
                    connected = true, registered_at = now(), last_heartbeat = now()""")
                .params(id, String.valueOf(hostname), json.writeValueAsString(facts)).update();
    }

    public void heartbeat(String id) {
        jdbc.sql("UPDATE agent SET last_heartbeat = now() WHERE id = ?").param(id).update();
    }

    public void disconnected(String id) {
        jdbc.sql("UPDATE agent SET connected = false WHERE id = ?").param(id).update();
    }

    /** At controller start no agent is connected yet, whatever the table says. */
    public void allDisconnected() {
        jdbc.sql("UPDATE agent SET connected = false WHERE connected").update();
    }

    @SuppressWarnings("unchecked")
    public List<AgentRow> list() {
        return jdbc.sql("SELECT id, hostname, facts::text, connected, registered_at, last_heartbeat FROM agent ORDER BY id")
                .query((rs, i) -> new AgentRow(rs.getString(1), rs.getString(2), json.readValue(rs.getString(3), Map.class),
                        rs.getBoolean(4), rs.getObject(5, OffsetDateTime.class), rs.getObject(6, OffsetDateTime.class)))
                .list();
    }
}
