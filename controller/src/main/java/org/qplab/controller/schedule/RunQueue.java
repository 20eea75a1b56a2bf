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

    /** A queued run and where it must go (see {@link org.qplab.controller.experiment.Matrix.RunPoint}). */
    public record Queued(long runId, String client, String server) {}

    /** The oldest queued runs, in queue order. */
    public List<Queued> queued(int limit) {
        return jdbc.sql("SELECT id, want_client, want_server FROM run WHERE status = 'QUEUED' ORDER BY queued_at, id LIMIT ?")
                .param(limit).query((rs, i) -> new Queued(rs.getLong(1), rs.getString(2), rs.getString(3))).list();
    }

    /**
     * Marks a queued run RUNNING on agentId (and serverAgentId for a pair), with the host facts of the
     * sending side; empty when the run is no longer queued (cancelled meanwhile).
     */
    public Optional<Assignment> claim(long runId, String agentId, String serverAgentId) {
        return tx.execute(status -> {
            Optional<Assignment> claimed = jdbc.sql("""
                            UPDATE run SET status = 'RUNNING', agent_id = ?, server_agent_id = ?, attempt = attempt + 1,
                                started_at = now(), host_facts = (SELECT facts FROM agent WHERE id = ?)
                            WHERE id = ? AND status = 'QUEUED'
                            RETURNING id, experiment_id, params::text""")
                    .params(agentId, serverAgentId, agentId, runId)
                    .query((rs, i) -> new Assignment(rs.getLong(1), rs.getLong(2), toMap(rs.getString(3))))
                    .optional();
            claimed.ifPresent(a -> jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ? AND status = 'QUEUED'")
                    .param(a.experimentId()).update());
            return claimed;
        });
    }

    /** Keeps the receiving side's own summary (or its error) of a pair run. */
    public void serverEnded(long runId, String serverAgentId, Map<String, Object> summaryOrError) {
        jdbc.sql("UPDATE run SET server_summary = CAST(? AS jsonb) WHERE id = ? AND server_agent_id = ?")
                .params(json.writeValueAsString(summaryOrError), runId, serverAgentId).update();
    }

    /** Puts a run that never reached its agent back in the queue. */
    public void requeue(long runId, String agentId) {
        jdbc.sql("""
                UPDATE run SET status = 'QUEUED', agent_id = NULL, server_agent_id = NULL, started_at = NULL
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
