package org.qplab.controller.analysis;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/**
 * Reads an experiment's finished runs as configurations: one row per distinct configuration (its parameters,
 * and where the matrix placed it: {@link #HOSTS}), with the median, count and spread of a metric over its runs
 * (the repeats). Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
public class CurveRepository {

    /**
     * The pseudo-parameter of where a run was placed by the matrix's hosts: "client/server" for a pair, "client"
     * for loopback on a named host; absent for loopback on any agent.
     */
    public static final String HOSTS = "hosts";

    /** A run's configuration as SQL over run r: its parameters plus its placement, when the matrix named one. */
    public static final String CONFIGURATION = "(r.params || CASE WHEN r.want_client IS NULL THEN '{}'::jsonb "
            + "ELSE jsonb_build_object('" + HOSTS + "', concat_ws('/', r.want_client, r.want_server)) END)";

    /** One configuration's finished runs: y over them (median, min, max; n runs), and x's median when x is a metric. */
    public record Configuration(Map<String, Object> params, double y, int n, double min, double max, Double x) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public CurveRepository(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /**
     * The configurations of the experiment's finished runs that measured metric (an SQL expression over
     * run_summary s and run r) and have parameter xParam, or measured the metric xMetric (one of the two is null).
     */
    public List<Configuration> configurations(long experimentId, String metric, String xParam, String xMetric) {
        String sql = """
                SELECT c.p::text, percentile_cont(0.5) WITHIN GROUP (ORDER BY c.y), count(*), min(c.y), max(c.y),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY c.x)
                FROM (SELECT %s AS p, %s AS y, %s AS x
                      FROM run r JOIN run_summary s ON s.run_id = r.id
                      WHERE r.experiment_id = ? AND r.status = 'FINISHED' AND %s) c
                WHERE c.y IS NOT NULL
                GROUP BY c.p""".formatted(CONFIGURATION, metric, xMetric == null ? "NULL::double precision" : xMetric,
                xMetric == null ? "(r.params ->> ?) IS NOT NULL" : xMetric + " IS NOT NULL");
        var query = jdbc.sql(sql).param(experimentId);
        if (xMetric == null) {
            query = query.param(xParam); // a run without the x parameter (an engine run beside nvmeof ones) has no point
        }
        return query.query((rs, i) -> new Configuration(map(rs.getString(1)), rs.getDouble(2), rs.getInt(3),
                rs.getDouble(4), rs.getDouble(5), rs.getObject(6, Double.class))).list();
    }

    /**
     * The experiment's finished runs placed on a client/server pair, one row per configuration (parameters), pair
     * and round (run.retest): the median of metric (an SQL expression over run_summary s and run r) over its runs,
     * and their count.
     */
    public List<PairMatrix.Row> pairs(long experimentId, String metric) {
        String sql = """
                SELECT c.p::text, c.client, c.server, c.round, percentile_cont(0.5) WITHIN GROUP (ORDER BY c.y),
                       count(*)
                FROM (SELECT r.params AS p, r.want_client AS client, r.want_server AS server, r.retest AS round, %s AS y
                      FROM run r JOIN run_summary s ON s.run_id = r.id
                      WHERE r.experiment_id = ? AND r.status = 'FINISHED' AND r.want_client IS NOT NULL
                        AND r.want_server IS NOT NULL) c
                WHERE c.y IS NOT NULL
                GROUP BY c.p, c.client, c.server, c.round""".formatted(metric);
        return jdbc.sql(sql).param(experimentId).query((rs, i) -> new PairMatrix.Row(map(rs.getString(1)),
                rs.getString(2), rs.getString(3), rs.getInt(4), rs.getDouble(5), rs.getInt(6))).list();
    }

    /** The experiment's matrix as submitted, or null when there is no such experiment. */
    public Map<String, Object> matrix(long experimentId) {
        return jdbc.sql("SELECT matrix::text FROM experiment WHERE id = ?").param(experimentId)
                .query(String.class).optional().map(this::map).orElse(null);
    }

    /** The parameters of one of the experiment's runs (the first), or null when it has none. */
    public Map<String, Object> someParams(long experimentId) {
        return jdbc.sql("SELECT params::text FROM run WHERE experiment_id = ? ORDER BY id LIMIT 1").param(experimentId)
                .query(String.class).optional().map(this::map).orElse(null);
    }

    /** Every parameter (and {@link #HOSTS}) of the experiment's runs, with the distinct values they take. */
    public Map<String, Set<String>> values(long experimentId) {
        Map<String, Set<String>> values = new TreeMap<>();
        jdbc.sql("""
                        SELECT DISTINCT e.key, e.value #>> '{}'
                        FROM run r, jsonb_each(%s) e
                        WHERE r.experiment_id = ? AND r.superseded_by IS NULL""".formatted(CONFIGURATION))
                .param(experimentId)
                .query((rs, i) -> values.computeIfAbsent(rs.getString(1), k -> new TreeSet<>()).add(rs.getString(2)))
                .list();
        return values;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> map(String text) {
        return json.readValue(text, Map.class);
    }
}
