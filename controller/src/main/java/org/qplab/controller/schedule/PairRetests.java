package org.qplab.controller.schedule;

import org.qplab.controller.analysis.CurveRepository;
import org.qplab.controller.analysis.PairMatrix;
import org.qplab.controller.experiment.PairRules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectMapper;

/**
 * Retests of bad host pairs, as ClusterKit retests a fabric's: when the last run of an experiment on pairs ends, the
 * pairs judged bad in every round so far (PairMatrix, by the matrix's bad_below and bad_above) run again, each with
 * all the runs it had in the last round (its repeats), as round k + 1 (run.retest) at the end of the run order,
 * until the matrix's retests are used or no pair is bad. A pair that is good in a retest is not bad: one slow round does not condemn a link. The
 * new runs are queued like any, so the experiment stays open until they end. Called inside the transaction that
 * ends the run, after the experiment's row lock: two run ends never plan the same round.
 */
@Component
public class PairRetests {

    private static final Logger log = LoggerFactory.getLogger(PairRetests.class);

    private final JdbcClient jdbc;
    private final CurveRepository runs;
    private final ObjectMapper json;

    public PairRetests(JdbcClient jdbc, CurveRepository runs, ObjectMapper json) {
        this.jdbc = jdbc;
        this.runs = runs;
        this.json = json;
    }

    /** Queues the next round of retests when the experiment's runs all ended; returns how many runs it queued. */
    int plan(long experimentId) {
        Boolean open = jdbc.sql("""
                        SELECT e.status IN ('QUEUED', 'RUNNING')
                           AND NOT EXISTS (SELECT 1 FROM run WHERE experiment_id = e.id AND status IN ('QUEUED', 'RUNNING'))
                           AND EXISTS (SELECT 1 FROM run WHERE experiment_id = e.id AND want_server IS NOT NULL)
                        FROM experiment e WHERE e.id = ?""")
                .param(experimentId).query(Boolean.class).optional().orElse(false);
        if (!open) {
            return 0;
        }
        PairRules rules = PairRules.of(runs.matrix(experimentId));
        int round = jdbc.sql("SELECT coalesce(max(retest), 0) FROM run WHERE experiment_id = ?").param(experimentId)
                .query(Integer.class).single();
        if (round >= rules.retests()) {
            return 0;
        }
        PairMatrix judged = PairMatrix.of(runs, experimentId, null, rules.badBelow(), rules.badAbove());
        int queued = 0;
        StringBuilder which = new StringBuilder();
        for (PairMatrix.Judged configuration : judged.configurations()) {
            String params = json.writeValueAsString(configuration.params());
            for (PairMatrix.Cell pair : configuration.pairs()) {
                if (!pair.bad() || pair.rounds() != round + 1) {
                    continue; // good, or already good in an earlier round
                }
                queued += jdbc.sql("""
                                INSERT INTO run (experiment_id, idx, repeat, params, want_client, want_server, retest)
                                SELECT experiment_id,
                                       (SELECT max(idx) FROM run WHERE experiment_id = ?) + row_number() OVER (ORDER BY id),
                                       repeat, params, want_client, want_server, ?
                                FROM run
                                WHERE experiment_id = ? AND retest = ? AND want_client = ? AND want_server = ?
                                  AND params = CAST(? AS jsonb) AND superseded_by IS NULL""")
                        .params(experimentId, round + 1, experimentId, round, pair.client(), pair.server(), params)
                        .update();
                which.append(which.isEmpty() ? "" : ", ").append(pair.client()).append('/').append(pair.server())
                        .append(String.format(" (%.1f %% of the best)", 100 * pair.relative()));
            }
        }
        if (queued > 0) {
            log.info("experiment {}: retest {} of {}: {} runs of the pairs still bad: {}", experimentId, round + 1,
                    rules.retests(), queued, which);
        }
        return queued;
    }
}
