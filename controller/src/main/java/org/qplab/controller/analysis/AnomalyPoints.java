package org.qplab.controller.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.controller.experiment.AnomalySpec;
import org.qplab.controller.experiment.SearchSpec;
import org.qplab.controller.search.AnomalySearch;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;

/**
 * What an anomaly search has run so far: per point, every run that ended (its metric: bw_avg_bps; NaN when it failed
 * or was cancelled) in the order queued, with the counter warnings of its summaries (both sides'); a retried run
 * counts once, as its last try. Blocking.
 */
@Repository
public class AnomalyPoints {

    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    private final JdbcClient jdbc;
    private final CurveRepository runs;
    private final ObjectMapper json;

    public AnomalyPoints(JdbcClient jdbc, CurveRepository runs, ObjectMapper json) {
        this.jdbc = jdbc;
        this.runs = runs;
        this.json = json;
    }

    /** The search, its repeats, the metric judged, each point's runs, runs made (every try) and the minutes since its
     *  first run started (the database's clock). */
    public record Seen(SearchSpec spec, int repeats, Metric metric, List<AnomalySearch.Observation> observations,
                       int runs, double minutes) {
        public AnomalySpec anomalies() {
            return spec.anomalies();
        }

        public AnomalySearch.Settings settings() {
            return spec.anomalies().settings(spec.maxRuns(), repeats);
        }

        /** The search replayed over what it has run: the next runs (when its runs so far have ended) and its report. */
        public AnomalySearch.Step step() {
            Map<List<Integer>, Boolean> verdicts = new HashMap<>(); // the replay asks of a point many times
            return AnomalySearch.next(settings(), observations,
                    at -> verdicts.computeIfAbsent(at, spec.anomalies()::runnable));
        }
    }

    /** The experiment's anomaly search as run so far, or null when its matrix has none. */
    public Seen of(long experimentId) {
        Map<String, Object> source = runs.matrix(experimentId);
        if (source == null || !(source.get("search") instanceof Map<?, ?> search) || !search.containsKey("anomalies")) {
            return null;
        }
        SearchSpec spec = SearchSpec.of(source);
        int repeats = source.get("repeats") instanceof Number n ? n.intValue() : 1;
        Metric metric = Metric.byName("bw_avg_bps").orElseThrow();
        Map<List<Integer>, List<AnomalySearch.RunValue>> points = new LinkedHashMap<>();
        jdbc.sql("""
                        SELECT r.params::text, r.status = 'FINISHED' AND %s IS NOT NULL, coalesce(%s, 0),
                               (coalesce(s.summary->'warnings', '[]'::jsonb)
                                || coalesce(r.server_summary->'warnings', '[]'::jsonb))::text
                        FROM run r LEFT JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id = ? AND r.superseded_by IS NULL AND r.status NOT IN ('QUEUED', 'RUNNING')
                        ORDER BY r.idx""".formatted(metric.sql(), metric.sql()))
                .param(experimentId)
                .query((rs, i) -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> params = json.readValue(rs.getString(1), Map.class);
                    List<Integer> at = spec.anomalies().indices(params);
                    if (at != null) {
                        double value = rs.getBoolean(2) ? rs.getDouble(3) : Double.NaN;
                        points.computeIfAbsent(at, k -> new ArrayList<>())
                                .add(new AnomalySearch.RunValue(value, json.readValue(rs.getString(4), STRINGS)));
                    }
                    return at;
                }).list();
        List<AnomalySearch.Observation> observations = points.entrySet().stream()
                .map(e -> new AnomalySearch.Observation(e.getKey(), e.getValue())).toList();
        int made = jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ?").param(experimentId)
                .query(Integer.class).single();
        double minutes = jdbc.sql("""
                        SELECT extract(epoch FROM now() - coalesce((SELECT min(started_at) FROM run
                                                                   WHERE experiment_id = e.id), e.created_at)) / 60
                        FROM experiment e WHERE e.id = ?""")
                .param(experimentId).query(Double.class).single();
        return new Seen(spec, repeats, metric, observations, made, minutes);
    }

    /** The stored report of the experiment's anomaly search, or null while it runs. */
    public AnomalySearch.Report result(long experimentId) {
        List<String> stored = jdbc.sql("SELECT search_result::text FROM experiment WHERE id = ?").param(experimentId)
                .query(String.class).list();
        String text = stored.isEmpty() ? null : stored.get(0);
        return text == null ? null : json.readValue(text, AnomalySearch.Report.class);
    }
}
