package org.qplab.controller.schedule;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/** The run queue in PostgreSQL. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class RunQueue {

    /** A run handed to an agent. */
    public record Assignment(long runId, long experimentId, Map<String, Object> params) {}

    /** A run whose agent went away. */
    public record Orphan(long runId, String agentId) {}

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;

    public RunQueue(JdbcClient jdbc, TransactionTemplate tx, ObjectMapper json) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.json = json;
    }

    /** Takes the oldest queued run for this agent; concurrent callers never take the same run. */
    public Optional<Assignment> claimNext(String agentId) {
        return tx.execute(status -> {
            Optional<Assignment> claimed = jdbc.sql("""
                            UPDATE run SET status = 'RUNNING', agent_id = ?, attempt = attempt + 1, started_at = now(),
                                host_facts = (SELECT facts FROM agent WHERE id = ?)
                            WHERE id = (SELECT id FROM run WHERE status = 'QUEUED' ORDER BY queued_at, id
                                        FOR UPDATE SKIP LOCKED LIMIT 1)
                            RETURNING id, experiment_id, params::text""")
                    .params(agentId, agentId)
                    .query((rs, i) -> new Assignment(rs.getLong(1), rs.getLong(2), toMap(rs.getString(3))))
                    .optional();
            claimed.ifPresent(a -> jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ? AND status = 'QUEUED'")
                    .param(a.experimentId()).update());
            return claimed;
        });
    }

    /** Puts a run that never reached its agent back in the queue. */
    public void requeue(long runId, String agentId) {
        jdbc.sql("""
                UPDATE run SET status = 'QUEUED', agent_id = NULL, started_at = NULL
                WHERE id = ? AND agent_id = ? AND status = 'RUNNING'""").params(runId, agentId).update();
    }

    /** Runs still RUNNING on agents that have been disconnected for longer than grace. */
    public List<Orphan> orphans(Duration grace) {
        return jdbc.sql("""
                        SELECT r.id, r.agent_id FROM run r JOIN agent a ON a.id = r.agent_id
                        WHERE r.status = 'RUNNING' AND NOT a.connected
                          AND coalesce(a.last_heartbeat, a.registered_at) < now() - make_interval(secs => ?)""")
                .param(grace.toSeconds())
                .query((rs, i) -> new Orphan(rs.getLong(1), rs.getString(2))).list();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(String text) {
        return json.readValue(text, Map.class);
    }
}
