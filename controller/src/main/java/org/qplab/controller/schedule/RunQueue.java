package org.qplab.controller.schedule;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.live.LiveRuns;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/** The run queue in PostgreSQL. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class RunQueue {

    /** A run handed to an agent. */
    public record Assignment(long runId, long experimentId, Map<String, Object> params) {}

    /** A run one of whose agents went away: lostAgent (the client, agentId, or a pair's server). */
    public record Orphan(long runId, String agentId, String lostAgent) {}

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;
    private final LiveRuns live;

    public RunQueue(JdbcClient jdbc, TransactionTemplate tx, ObjectMapper json, LiveRuns live) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.json = json;
        this.live = live;
    }

    /** A queued run, where it must go (the want_client and want_server of its matrix point) and its parameters. */
    public record Queued(long runId, String client, String server, Map<String, Object> params) {}

    /** The oldest queued runs, in queue order. */
    public List<Queued> queued(int limit) {
        return jdbc.sql("""
                        SELECT id, want_client, want_server, params::text FROM run WHERE status = 'QUEUED'
                        ORDER BY queued_at, id LIMIT ?""")
                .param(limit).query((rs, i) -> new Queued(rs.getLong(1), rs.getString(2), rs.getString(3),
                        toMap(rs.getString(4)))).list();
    }

    /**
     * Marks a queued run RUNNING on agentId (and serverAgentId for a pair), with the host facts of the
     * sending side; empty when the run is no longer queued (cancelled meanwhile). Its live watchers hear that it
     * started once that is committed.
     */
    public Optional<Assignment> claim(long runId, String agentId, String serverAgentId) {
        Optional<Assignment> started = tx.execute(status -> {
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
        started.ifPresent(a -> live.started(a.runId()));
        return started;
    }

    /** Keeps the receiving side's own summary (or its error) of a pair run. */
    public void serverEnded(long runId, String serverAgentId, Map<String, Object> summaryOrError) {
        jdbc.sql("UPDATE run SET server_summary = CAST(? AS jsonb) WHERE id = ? AND server_agent_id = ?")
                .params(json.writeValueAsString(summaryOrError), runId, serverAgentId).update();
    }

    /** Puts a run that never reached its agent back in the queue; that was not a try. */
    public void requeue(long runId, String agentId) {
        jdbc.sql("""
                UPDATE run SET status = 'QUEUED', agent_id = NULL, server_agent_id = NULL, started_at = NULL,
                    attempt = attempt - 1
                WHERE id = ? AND agent_id = ? AND status = 'RUNNING'""").params(runId, agentId).update();
    }

    /**
     * Runs still RUNNING where the client, or the server of a pair that has not reported its end yet, has
     * been disconnected for longer than grace.
     */
    public List<Orphan> orphans(Duration grace) {
        return jdbc.sql("""
                        SELECT r.id, r.agent_id, a.id FROM run r
                        JOIN agent a ON a.id = r.agent_id OR (a.id = r.server_agent_id AND r.server_summary IS NULL)
                        WHERE r.status = 'RUNNING' AND NOT a.connected
                          AND coalesce(a.last_heartbeat, a.registered_at) < now() - make_interval(secs => ?)""")
                .param(grace.toMillis() / 1000.0)
                .query((rs, i) -> new Orphan(rs.getLong(1), rs.getString(2), rs.getString(3))).list();
    }

    /** A run RUNNING on an agent, as one side: see {@link #runningOn}. */
    public record Running(long runId, String client, String server, boolean serverEnded, Map<String, Object> params) {}

    /** The runs RUNNING with agentId as the client or the server. */
    public List<Running> runningOn(String agentId) {
        return jdbc.sql("""
                        SELECT id, agent_id, server_agent_id, server_summary IS NOT NULL, params::text FROM run
                        WHERE status = 'RUNNING' AND (agent_id = ? OR server_agent_id = ?) ORDER BY id""")
                .params(agentId, agentId)
                .query((rs, i) -> new Running(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                        toMap(rs.getString(5))))
                .list();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(String text) {
        return json.readValue(text, Map.class);
    }
}
