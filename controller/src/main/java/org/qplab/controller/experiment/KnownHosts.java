package org.qplab.controller.experiment;

import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/**
 * The hosts this controller knows, connected now or not: every agent that has registered (its last hello's facts and
 * last heartbeat) and every host of the hosts inventory (none of either for an inventory host whose agent never
 * connected). A submit warns about a matrix's hosts that are not connected from these ({@link HostCapabilities}).
 * Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
class KnownHosts {

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    KnownHosts(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** By name: each known host's last facts (null: none) and when its agent was last heard (null: never). */
    @SuppressWarnings("unchecked")
    Map<String, HostCapabilities.Offline> all() {
        Map<String, HostCapabilities.Offline> known = new LinkedHashMap<>();
        jdbc.sql("""
                SELECT a.id, a.facts::text, a.last_heartbeat FROM agent a
                UNION ALL
                SELECT h.name, NULL, NULL FROM host h WHERE NOT EXISTS (SELECT 1 FROM agent a WHERE a.id = h.name)
                ORDER BY 1""")
                .query((rs, i) -> Map.entry(rs.getString(1), new HostCapabilities.Offline(
                        rs.getString(2) == null ? null : (Map<String, Object>) json.readValue(rs.getString(2), Map.class),
                        rs.getObject(3, OffsetDateTime.class))))
                .list().forEach(e -> known.put(e.getKey(), e.getValue()));
        return known;
    }
}
