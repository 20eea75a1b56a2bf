package org.qplab.controller.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Aggregates stored run summaries into curves. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class CurveRepository {

    private final JdbcClient jdbc;

    public CurveRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * x and series are parameter keys, metric an SQL expression over run_summary s; the caller has checked them.
     * Several series keys make one series per combination of their values, named by the values joined by spaces.
     */
    public List<Curve.Point> points(long experimentId, String x, List<String> series, String metric) {
        String sql = """
                SELECT %2$s AS series, (r.params ->> ?)::double precision AS x,
                       avg(%1$s) AS y, count(*) AS n, min(%1$s) AS lo, max(%1$s) AS hi
                FROM run r JOIN run_summary s ON s.run_id = r.id
                WHERE r.experiment_id = ? AND r.status = 'FINISHED' AND %1$s IS NOT NULL
                  AND (r.params ->> ?) IS NOT NULL
                GROUP BY 1, 2""".formatted(metric, seriesSql(series));
        List<Object> params = new ArrayList<>(series);
        params.add(x);
        params.add(experimentId);
        params.add(x); // a run without the x parameter (an engine run beside nvmeof ones, or the reverse) has no point
        return query(sql, params);
    }

    /**
     * A metric against another (xMetric, an SQL expression like metric): one point per matrix point (the runs
     * with the same parameters: repeats and host pairs pooled), at the mean of x and the mean of y.
     */
    public List<Curve.Point> pointsAgainstMetric(long experimentId, String xMetric, List<String> series, String metric) {
        String sql = """
                SELECT %3$s AS series, avg(%2$s) AS x,
                       avg(%1$s) AS y, count(*) AS n, min(%1$s) AS lo, max(%1$s) AS hi
                FROM run r JOIN run_summary s ON s.run_id = r.id
                WHERE r.experiment_id = ? AND r.status = 'FINISHED' AND %1$s IS NOT NULL AND %2$s IS NOT NULL
                GROUP BY 1, r.params""".formatted(metric, xMetric, seriesSql(series));
        List<Object> params = new ArrayList<>(series);
        params.add(experimentId);
        return query(sql, params);
    }

    private static String seriesSql(List<String> series) {
        return series.size() == 1 ? "r.params ->> ?"
                : "concat_ws(' ', " + String.join(", ", series.stream().map(key -> "r.params ->> ?").toList()) + ")";
    }

    private List<Curve.Point> query(String sql, List<Object> params) {
        return jdbc.sql(sql).params(params)
                .query((rs, i) -> new Curve.Point(seriesValue(rs.getString("series")), rs.getDouble("x"),
                        rs.getDouble("y"), rs.getInt("n"), rs.getDouble("lo"), rs.getDouble("hi")))
                .list().stream()
                .sorted(Comparator.comparing((Curve.Point p) -> sortKey(p.series())).thenComparingDouble(Curve.Point::x))
                .toList();
    }

    private static Object seriesValue(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return text;
        }
    }

    private static String sortKey(Object series) {
        return series instanceof Long n ? String.format("%020d", n) : String.valueOf(series);
    }
}
