package org.qplab.controller.schedule;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.qplab.controller.analysis.AnomalyPoints;
import org.qplab.controller.analysis.SearchPoints;
import org.qplab.controller.search.AnomalySearch;
import org.qplab.controller.search.KneeSearch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectMapper;

/**
 * The steps of a search (the matrix's search). An anomaly search (AnomalyPoints, AnomalySearch): when the runs queued
 * so far have all ended, the search is replayed over every run it made and queues what it plans next (a walk point
 * once, a candidate's or reset's further repeats), or stores its report; past max_minutes since its first run
 * started it stores the report as it stands. A knee search: when the runs queued so far have all ended, the points measured
 * (SearchPoints: each x's median over its finished repeats) go to KneeSearch, which plans the next x values, queued
 * as runs (every repeat, at the end of the run order), or says where the knee or cliff is, stored with the experiment
 * (search_result). Called inside the transaction that ends a run, after the experiment's row lock.
 */
@Component
public class SearchSteps {

    private static final Logger log = LoggerFactory.getLogger(SearchSteps.class);

    private final JdbcClient jdbc;
    private final SearchPoints points;
    private final AnomalyPoints anomalies;
    private final ObjectMapper json;

    public SearchSteps(JdbcClient jdbc, SearchPoints points, AnomalyPoints anomalies, ObjectMapper json) {
        this.jdbc = jdbc;
        this.points = points;
        this.anomalies = anomalies;
        this.json = json;
    }

    /** Queues the search's next points, or stores its result; returns how many runs it queued. */
    int plan(long experimentId) {
        Boolean open = jdbc.sql("""
                        SELECT e.status IN ('QUEUED', 'RUNNING') AND e.search_result IS NULL
                           AND NOT EXISTS (SELECT 1 FROM run WHERE experiment_id = e.id AND status IN ('QUEUED', 'RUNNING'))
                        FROM experiment e WHERE e.id = ?""")
                .param(experimentId).query(Boolean.class).optional().orElse(false);
        if (!open) {
            return 0;
        }
        AnomalyPoints.Seen walk = anomalies.of(experimentId);
        if (walk != null) {
            return planAnomalies(experimentId, walk);
        }
        SearchPoints.Seen seen = points.of(experimentId);
        if (seen == null) {
            return 0; // no search
        }
        KneeSearch.Step step = KneeSearch.next(seen.settings(), seen.observations());
        List<Long> next = new ArrayList<>(step.next());
        next.removeAll(seen.tried()); // a point whose runs all failed is not tried again
        if (step.result() == null && next.isEmpty()) {
            store(experimentId, new KneeSearch.Result("none", 0, 0, 0, false, "the search stopped: its next points "
                    + step.next() + " were tried and failed"));
            return 0;
        }
        if (step.result() != null) {
            store(experimentId, step.result());
            return 0;
        }
        int queued = 0;
        for (long x : next) {
            queued += queue(experimentId, seen.spec().at(seen.base(), x), 0, seen.repeats());
        }
        log.info("experiment {}: search over {}: {} points measured, next {} ({} runs)", experimentId,
                seen.spec().dimension(), seen.observations().size(), next, queued);
        return queued;
    }

    private int planAnomalies(long experimentId, AnomalyPoints.Seen seen) {
        AnomalySearch.Step step = seen.step();
        AnomalySearch.Report report = step.report();
        int limit = seen.anomalies().maxMinutes();
        if (!step.next().isEmpty() && seen.minutes() >= limit) {
            String doing = report.why().substring(0, 1).toLowerCase(Locale.ROOT) + report.why().substring(1);
            store(experimentId, new AnomalySearch.Report(report.anomalies(), seen.runs(), report.points(),
                    report.dismissed(), "max_minutes", "The wall-clock limit (max_minutes " + limit + ") ran out after "
                    + seen.runs() + " runs, while " + doing));
            return 0;
        }
        if (step.next().isEmpty()) {
            store(experimentId, report);
            return 0;
        }
        Map<List<Integer>, Integer> ran = new HashMap<>();
        seen.observations().forEach(o -> ran.put(o.at(), o.runs().size()));
        int queued = 0;
        for (AnomalySearch.Request request : step.next()) {
            queued += queue(experimentId, seen.anomalies().point(request.at()), ran.getOrDefault(request.at(), 0),
                    request.runs());
        }
        log.info("experiment {}: anomaly search: {} points run, {} anomalies so far; {} ({} runs)", experimentId,
                report.points(), report.anomalies().size(), report.why(), queued);
        return queued;
    }

    /** Queues count runs of a point, as repeats from firstRepeat on, at the end of the run order. */
    private int queue(long experimentId, Map<String, Object> params, int firstRepeat, int count) {
        return jdbc.sql("""
                        INSERT INTO run (experiment_id, idx, repeat, params, want_client, want_server)
                        SELECT ?, (SELECT max(idx) FROM run WHERE experiment_id = ?) + r + 1, ? + r, CAST(? AS jsonb),
                               (SELECT want_client FROM run WHERE experiment_id = ? ORDER BY id LIMIT 1),
                               (SELECT want_server FROM run WHERE experiment_id = ? ORDER BY id LIMIT 1)
                        FROM generate_series(0, ? - 1) AS r""")
                .params(experimentId, experimentId, firstRepeat, json.writeValueAsString(params), experimentId,
                        experimentId, count)
                .update();
    }

    private void store(long experimentId, Object result) {
        jdbc.sql("UPDATE experiment SET search_result = CAST(? AS jsonb) WHERE id = ?")
                .params(json.writeValueAsString(result), experimentId).update();
        log.info("experiment {}: search ended: {}", experimentId, result instanceof KneeSearch.Result knee ? knee.why()
                : ((AnomalySearch.Report) result).why());
    }
}
