package org.qplab.controller.analysis;

import java.util.List;
import java.util.Map;
import org.qplab.controller.experiment.SearchSpec;
import org.qplab.controller.search.KneeSearch;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/**
 * What a knee search has measured so far: per value of its dimension, the median of the metric (the runs' default:
 * bw_avg_bps for bandwidth runs, latency_typical_us for latency ones) over the finished repeats, their spread and
 * count, and every value tried (a value whose runs all failed is tried but not seen). Blocking.
 */
@Repository
public class SearchPoints {

    private final JdbcClient jdbc;
    private final CurveRepository runs;
    private final ObjectMapper json;

    public SearchPoints(JdbcClient jdbc, CurveRepository runs, ObjectMapper json) {
        this.jdbc = jdbc;
        this.runs = runs;
        this.json = json;
    }

    /** One measured value of the dimension. */
    public record Point(long x, double y, double min, double max, int n) {
        KneeSearch.Observation observation() {
            return new KneeSearch.Observation(x, y, y == 0 ? 0 : (max - min) / Math.abs(y));
        }
    }

    /** The search, its fixed parameters (a run's) and repeats, the metric judged, the points measured and the values tried. */
    public record Seen(SearchSpec spec, Map<String, Object> base, int repeats, Metric metric, List<Point> points,
                       List<Long> tried) {
        public KneeSearch.Settings settings() {
            return spec.settings(repeats);
        }

        public List<KneeSearch.Observation> observations() {
            return points.stream().map(Point::observation).toList();
        }
    }

    /** The experiment's search as measured so far, or null when its matrix has no search. */
    @SuppressWarnings("unchecked")
    public Seen of(long experimentId) {
        Map<String, Object> source = runs.matrix(experimentId);
        SearchSpec spec = SearchSpec.of(source);
        if (spec == null || spec.anomalies() != null) {
            return null; // no knee search (an anomaly search's runs are AnomalyPoints')
        }
        int repeats = source.get("repeats") instanceof Number n ? n.intValue() : 1;
        // the next points' parameters: the matrix's base as its expansion read it (64K is 65536), as the first points'
        // (a run's would carry what an override set on it)
        Map<String, Object> params = runs.someParams(experimentId);
        Map<String, Object> base = SearchSpec.base(source);
        Metric metric = params == null ? Metric.byName("bw_avg_bps").orElseThrow() : Metric.defaultFor(params);
        String x = "(r.params ->> '" + spec.dimension() + "')::bigint";
        List<Point> points = jdbc.sql("""
                        SELECT %s AS x, percentile_cont(0.5) WITHIN GROUP (ORDER BY %s), min(%s), max(%s), count(*)
                        FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id = ? AND r.status = 'FINISHED' AND %s IS NOT NULL
                        GROUP BY 1 ORDER BY 1""".formatted(x, metric.sql(), metric.sql(), metric.sql(), metric.sql()))
                .param(experimentId)
                .query((rs, i) -> new Point(rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getInt(5)))
                .list();
        List<Long> tried = jdbc.sql("SELECT DISTINCT " + x + " FROM run r WHERE r.experiment_id = ? ORDER BY 1")
                .param(experimentId).query(Long.class).list();
        return new Seen(spec, base, repeats, metric, points, tried);
    }

    /** The stored outcome of the experiment's search, or null while it runs. */
    public KneeSearch.Result result(long experimentId) {
        List<String> stored = jdbc.sql("SELECT search_result::text FROM experiment WHERE id = ?").param(experimentId)
                .query(String.class).list();
        String text = stored.isEmpty() ? null : stored.get(0);
        return text == null ? null : json.readValue(text, KneeSearch.Result.class);
    }
}
