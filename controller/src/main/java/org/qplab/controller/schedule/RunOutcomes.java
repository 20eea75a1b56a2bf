package org.qplab.controller.schedule;

import java.util.List;
import java.util.Map;
import org.qplab.controller.analysis.RunHistograms;
import org.qplab.controller.history.Expectations;
import org.qplab.controller.live.LiveRuns;
import org.qplab.controller.run.RunFinished;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * How a run ends in the database: its summary stored once, its status set, a finished run judged against its
 * experiment's expect rules, a failure that may pass tried again as a new run of the same point (up to
 * qplab.schedule.max-attempts), what an experiment plans from its results queued when its last run so far ended (the
 * retests of its bad host pairs, PairRetests; its search's next points, SearchSteps), and its experiment closed when
 * it was the last run. Idempotent, because an agent replays a run's end after a reconnect.
 */
@Component
public class RunOutcomes {

    private static final Logger log = LoggerFactory.getLogger(RunOutcomes.class);

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;
    private final LiveRuns live;
    private final RunHistograms histograms;
    private final Expectations expectations;
    private final int maxAttempts;
    private final ApplicationEventPublisher events;
    private final PairRetests retests;
    private final SearchSteps search;

    public RunOutcomes(JdbcClient jdbc, TransactionTemplate tx, ObjectMapper json, LiveRuns live,
                       ScheduleProperties schedule, RunHistograms histograms, Expectations expectations,
                       ApplicationEventPublisher events, PairRetests retests, SearchSteps search) {
        this.retests = retests;
        this.search = search;
        this.expectations = expectations;
        this.jdbc = jdbc;
        this.events = events;
        this.tx = tx;
        this.json = json;
        this.live = live;
        this.histograms = histograms;
        this.maxAttempts = schedule.maxAttempts();
    }

    /**
     * The agent finished the run; stores the engine's summary and, once it ended, its histogram (the sum of its
     * intervals). Every frame the agent says it sent must be stored, and the stored intervals must count every cycle
     * of the summary: otherwise the run FAILED, saying what is missing. Blocking.
     */
    public void finished(long runId, String agentId, Map<String, Object> summary, long batches) {
        String ended = tx.execute(status -> {
            // written before the run's end is visible, in the same transaction: whoever sees it FINISHED sees its
            // histogram too (computed once now, not by the first reader)
            histograms.current(List.of(runId));
            long[] stored = jdbc.sql("SELECT count(*), coalesce(sum(cycles), 0) FROM run_frame WHERE run_id = ?")
                    .param(runId).query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}).single();
            Map<?, ?> cycleNs = summary.get("cycle_ns") instanceof Map<?, ?> m ? m : Map.of();
            jdbc.sql("""
                    INSERT INTO run_summary (run_id, summary, cycles, messages, bytes, errors, dropped, duration_ns,
                        bw_avg_bps, bw_peak_bps, msg_rate, cycle_median_ns, cycle_p99_ns, batches)
                    SELECT ?, CAST(? AS jsonb), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                    WHERE EXISTS (SELECT 1 FROM run WHERE id = ? AND agent_id = ?)
                    ON CONFLICT (run_id) DO NOTHING""")
                    .params(runId, json.writeValueAsString(summary), longOf(summary, "cycles"),
                            longOf(summary, "messages"), longOf(summary, "bytes"), longOf(summary, "errors"),
                            longOf(summary, "dropped"), longOf(summary, "duration_ns"),
                            doubleOf(summary, "bw_avg_bps"), doubleOf(summary, "bw_peak_bps"),
                            doubleOf(summary, "msg_rate"), doubleOf(cycleNs, "median"), doubleOf(cycleNs, "p99"),
                            batches, runId, agentId)
                    .update(); // only the summary of the run's own agent: another's would take its place for good
            if (stored[0] != batches) {
                return end(status, runId, agentId, "FAILED", "the agent sent " + batches + " frames but " + stored[0]
                        + " were stored", false);
            } else if (stored[1] != longOf(summary, "cycles")) {
                return end(status, runId, agentId, "FAILED", "the stored intervals count " + stored[1] + " cycles but the "
                        + "engine's summary " + longOf(summary, "cycles") + ": a statistics bug, please report it", false);
            } else if (Boolean.TRUE.equals(summary.get("stopped"))) {
                return end(status, runId, agentId, "CANCELLED", "stopped early on request; the cycles measured until then are kept",
                        false);
            }
            String finished = end(status, runId, agentId, "FINISHED", null, false);
            if (finished != null) {
                judge(runId, status); // before the commit: a FINISHED run (and experiment) has its verdict
            }
            return finished;
        });
        announce(runId, ended);
        if ("FINISHED".equals(ended)) {
            events.publishEvent(new RunFinished(runId)); // after the commit: a listener sees the run finished
        }
    }

    /**
     * Judges the finished run against its experiment's expect rules, behind a savepoint: a judgment that fails leaves
     * the run without a verdict (its experiment then shows it NOT_JUDGED) but never undoes or holds up its end.
     */
    private void judge(long runId, TransactionStatus status) {
        Object savepoint = status.createSavepoint();
        try {
            expectations.judge(runId);
            status.releaseSavepoint(savepoint);
        } catch (RuntimeException e) {
            status.rollbackToSavepoint(savepoint);
            log.error("run {} finished, but judging it against its expect rules failed; it has no verdict", runId, e);
        }
    }

    /**
     * The run failed (engine error, lost agent); frames that arrived are kept. When the failure may pass
     * (retryable) and the point has tries left, a new run of the same point is queued. Blocking.
     */
    public void failed(long runId, String agentId, String error, boolean retryable) {
        announce(runId, tx.execute(status -> end(status, runId, agentId, "FAILED", error, retryable)));
    }

    private void announce(long runId, String status) {
        if (status != null) {
            live.ended(runId, status);
        }
    }

    private record Ended(long experimentId, int attempt) {}

    /** Sets the run's end; returns the status set, or null when the run was not running there (a replay). */
    private String end(TransactionStatus transaction, long runId, String agentId, String status, String error,
                       boolean retryable) {
        // Run ends of one experiment take its row lock first, one after the other: each then sees the others'
        // runs as they ended, so whichever is last closes the experiment (two at once saw each other running).
        jdbc.sql("SELECT e.id FROM experiment e JOIN run r ON r.experiment_id = e.id WHERE r.id = ? FOR UPDATE OF e")
                .param(runId).query(Long.class).optional();
        Ended ended = jdbc.sql("""
                        UPDATE run SET status = ?, error = ?, finished_at = now()
                        WHERE id = ? AND status = 'RUNNING' AND agent_id = ? RETURNING experiment_id, attempt""")
                .params(status, error, runId, agentId).query((rs, i) -> new Ended(rs.getLong(1), rs.getInt(2)))
                .optional().orElse(null);
        if (ended == null) {
            log.debug("run {} end from {} ignored: not running there (a replay)", runId, agentId);
            return null;
        }
        long experimentId = ended.experimentId();
        log.info("run {} {} on {}{}", runId, status, agentId, error == null ? "" : ": " + error);
        if (retryable && ended.attempt() < maxAttempts) {
            retry(runId, experimentId, ended.attempt());
        }
        planMore(transaction, experimentId);
        jdbc.sql("""
                UPDATE experiment e SET finished_at = now(),
                    status = CASE WHEN EXISTS (SELECT 1 FROM run WHERE experiment_id = e.id AND status = 'FAILED'
                                                                   AND superseded_by IS NULL)
                                  THEN 'FAILED' ELSE 'FINISHED' END
                WHERE e.id = ? AND e.status IN ('QUEUED', 'RUNNING')
                  AND NOT EXISTS (SELECT 1 FROM run WHERE experiment_id = e.id AND status IN ('QUEUED', 'RUNNING'))""")
                .param(experimentId).update();
        return status;
    }

    /**
     * The last run queued so far of an experiment that plans from its results queues what comes next: the retests of
     * its bad host pairs (PairRetests), the next points of its search (SearchSteps). Each behind a savepoint:
     * planning that fails closes the experiment without them, but never undoes or holds up the run's end.
     */
    private void planMore(TransactionStatus transaction, long experimentId) {
        Object savepoint = transaction.createSavepoint();
        try {
            retests.plan(experimentId);
            transaction.releaseSavepoint(savepoint);
        } catch (RuntimeException e) {
            transaction.rollbackToSavepoint(savepoint);
            log.error("experiment {}: planning the retests of its bad pairs failed; it ends without them", experimentId, e);
        }
        savepoint = transaction.createSavepoint();
        try {
            search.plan(experimentId);
            transaction.releaseSavepoint(savepoint);
        } catch (RuntimeException e) {
            transaction.rollbackToSavepoint(savepoint);
            log.error("experiment {}: planning the next points of its search failed; it ends without them",
                    experimentId, e);
        }
    }

    /**
     * Queues the next try of a failed run's point as a new run (the failed one keeps its frames and error)
     * unless its experiment was cancelled meanwhile.
     */
    private void retry(long runId, long experimentId, int attempt) {
        boolean live = jdbc.sql("SELECT status IN ('QUEUED', 'RUNNING') FROM experiment WHERE id = ?")
                .param(experimentId).query(Boolean.class).single();
        if (!live) {
            return;
        }
        long next = jdbc.sql("SELECT nextval(pg_get_serial_sequence('run', 'id'))").query(Long.class).single();
        jdbc.sql("UPDATE run SET superseded_by = ? WHERE id = ?").params(next, runId).update();
        jdbc.sql("""
                INSERT INTO run (id, experiment_id, idx, repeat, params, want_client, want_server, attempt, retry_of)
                SELECT ?, experiment_id, idx, repeat, params, want_client, want_server, attempt, id FROM run WHERE id = ?""")
                .params(next, runId).update();
        log.info("run {} failed on try {} of {}: its point is tried again as run {}", runId, attempt, maxAttempts, next);
    }

    private static long longOf(Map<?, ?> map, String key) {
        return map.get(key) instanceof Number n ? n.longValue() : 0L;
    }

    private static double doubleOf(Map<?, ?> map, String key) {
        return map.get(key) instanceof Number n ? n.doubleValue() : 0.0;
    }
}
