package org.qplab.controller.schedule;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.cluster.ControllerNode;
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
    private final ControllerNode node;

    public RunQueue(JdbcClient jdbc, TransactionTemplate tx, ObjectMapper json, LiveRuns live, ControllerNode node) {
        this.node = node;
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
     * Marks a queued run RUNNING on agentId (and serverAgentId for a pair), driven by this controller, with the host
     * facts of the sending side; empty when the run is no longer queued (cancelled meanwhile, or claimed by another
     * controller), when another controller is claiming it or a run for one of its hosts right now, or when one of its
     * hosts has a run RUNNING (started by another controller: each host runs one benchmark at a time, whoever
     * scheduled it). Several controllers share the queue: the run's row and its hosts' rows are taken
     * {@code FOR UPDATE SKIP LOCKED}, so that a controller passes over what another is claiming rather than wait for
     * it. Its live watchers hear that it started once that is committed.
     */
    public Optional<Assignment> claim(long runId, String agentId, String serverAgentId) {
        List<String> hosts = serverAgentId == null ? List.of(agentId) : List.of(agentId, serverAgentId);
        Optional<Assignment> started = tx.execute(status -> {
            int locked = jdbc.sql("SELECT id FROM agent WHERE id = ANY(?) ORDER BY id FOR UPDATE SKIP LOCKED")
                    .param(hosts.toArray(String[]::new)).query(String.class).list().size();
            if (locked < hosts.size()) {
                return Optional.<Assignment>empty(); // another controller is claiming a run for one of them
            }
            Optional<Assignment> claimed = jdbc.sql("""
                            UPDATE run SET status = 'RUNNING', agent_id = ?, server_agent_id = ?, attempt = attempt + 1,
                                started_at = now(), host_facts = (SELECT facts FROM agent WHERE id = ?), controller_id = ?
                            WHERE id = (SELECT id FROM run WHERE id = ? AND status = 'QUEUED' FOR UPDATE SKIP LOCKED)
                              AND NOT EXISTS (SELECT 1 FROM run b WHERE b.status = 'RUNNING'
                                  AND (b.agent_id = ANY(?) OR b.server_agent_id = ANY(?)))
                            RETURNING id, experiment_id, params::text""")
                    .params(agentId, serverAgentId, agentId, node.id(), runId, hosts.toArray(String[]::new),
                            hosts.toArray(String[]::new))
                    .query((rs, i) -> new Assignment(rs.getLong(1), rs.getLong(2), toMap(rs.getString(3))))
                    .optional();
            claimed.ifPresent(a -> jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ? AND status = 'QUEUED'")
                    .param(a.experimentId()).update());
            return claimed;
        });
        started.ifPresent(a -> live.started(a.runId()));
        return started;
    }

    /**
     * This controller takes over runId from its driver, gone (null: nobody drove it); false when the run is not
     * RUNNING or another controller took it over first.
     */
    public boolean takeOver(long runId, String gone) {
        return jdbc.sql("UPDATE run SET controller_id = ? WHERE id = ? AND status = 'RUNNING' "
                + "AND controller_id IS NOT DISTINCT FROM ?").params(node.id(), runId, gone).update() == 1;
    }

    /** runId, when it is RUNNING. */
    public Optional<Running> running(long runId) {
        return jdbc.sql("""
                        SELECT id, agent_id, server_agent_id, server_summary IS NOT NULL, params::text, controller_id FROM run
                        WHERE status = 'RUNNING' AND id = ?""")
                .param(runId)
                .query((rs, i) -> new Running(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                        toMap(rs.getString(5)), rs.getString(6)))
                .optional();
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
     * been disconnected for longer than grace: those this controller drives, and, when orphansOfTheGone, those whose
     * driver is gone (one controller, the leader, sweeps those, so that no run is failed twice).
     */
    public List<Orphan> orphans(Duration grace, boolean orphansOfTheGone) {
        return jdbc.sql("""
                        SELECT r.id, r.agent_id, a.id FROM run r
                        JOIN agent a ON a.id = r.agent_id OR (a.id = r.server_agent_id AND r.server_summary IS NULL)
                        WHERE r.status = 'RUNNING' AND NOT a.connected
                          AND coalesce(a.last_heartbeat, a.registered_at) < now() - make_interval(secs => ?)
                          AND (r.controller_id IS NOT DISTINCT FROM ? OR (? AND (r.controller_id IS NULL
                              OR r.controller_id NOT IN (%s))))""".formatted(node.aliveSql()))
                .params(grace.toMillis() / 1000.0, node.id(), orphansOfTheGone)
                .query((rs, i) -> new Orphan(rs.getLong(1), rs.getString(2), rs.getString(3))).list();
    }

    /** A run RUNNING on an agent, as one side, and the controller that drives it: see {@link #runningOn}. */
    public record Running(long runId, String client, String server, boolean serverEnded, Map<String, Object> params,
                          String controller) {}

    /** The runs RUNNING with agentId as the client or the server. */
    public List<Running> runningOn(String agentId) {
        return jdbc.sql("""
                        SELECT id, agent_id, server_agent_id, server_summary IS NOT NULL, params::text, controller_id FROM run
                        WHERE status = 'RUNNING' AND (agent_id = ? OR server_agent_id = ?) ORDER BY id""")
                .params(agentId, agentId)
                .query((rs, i) -> new Running(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                        toMap(rs.getString(5)), rs.getString(6)))
                .list();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(String text) {
        return json.readValue(text, Map.class);
    }
}
