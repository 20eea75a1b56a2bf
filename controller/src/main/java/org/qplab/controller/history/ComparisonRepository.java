package org.qplab.controller.history;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.qplab.controller.analysis.CurveRepository;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.analysis.RunHistograms;
import org.qplab.controller.run.Fingerprint;
import org.qplab.protocol.CycleBuckets;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.databind.ObjectMapper;

/** What a comparison reads. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class ComparisonRepository {

    /**
     * A finished run: its configuration (parameters, plus hosts when the matrix placed it), the host it ran on,
     * its run-level metrics (every {@link Metric#JUDGED} it measured), and the counter deltas of its sides (side
     * "client": its own summary, the only one of a loopback run; "server": a pair run's receiving side) with the
     * counters its summaries warned about.
     */
    public record FinishedRun(long id, long experimentId, Map<String, Object> params, Map<String, Object> hostFacts,
                              long cycles, Map<String, Double> metrics, OffsetDateTime finishedAt,
                              Map<String, Map<String, Number>> counters, Set<String> warned) {

        public String fingerprint() {
            return Fingerprint.of(withoutHosts(params), hostFacts);
        }

        public Double metric(String name) {
            return metrics.get(name);
        }

        private static Map<String, Object> withoutHosts(Map<String, Object> configuration) {
            if (!configuration.containsKey(CurveRepository.HOSTS)) {
                return configuration;
            }
            Map<String, Object> params = new LinkedHashMap<>(configuration);
            params.remove(CurveRepository.HOSTS);
            return params;
        }
    }

    private static final String FINISHED = """
            SELECT r.id, r.experiment_id, %s::text, coalesce(r.host_facts, '{}'::jsonb)::text, s.cycles, r.finished_at,
                   (s.summary->'counters'->'deltas')::text, (r.server_summary->'counters'->'deltas')::text,
                   (coalesce(s.summary->'warnings', '[]'::jsonb) || coalesce(r.server_summary->'warnings', '[]'::jsonb))::text,
                   %s
            FROM run r JOIN run_summary s ON s.run_id = r.id
            """.formatted(CurveRepository.CONFIGURATION, String.join(", ",
            Metric.JUDGED.stream().map(name -> Metric.byName(name).orElseThrow().sql()).toList()));
    private static final int METRICS_FROM = 10;

    private final JdbcClient jdbc;
    private final ObjectMapper json;
    private final RunHistograms histograms;
    private final Fingerprints fingerprints;

    public ComparisonRepository(JdbcClient jdbc, ObjectMapper json, RunHistograms histograms, Fingerprints fingerprints) {
        this.jdbc = jdbc;
        this.json = json;
        this.histograms = histograms;
        this.fingerprints = fingerprints;
    }

    public Optional<String> experimentName(long id) {
        return jdbc.sql("SELECT name FROM experiment WHERE id = ?").param(id).query(String.class).optional();
    }

    /** The run's status and its experiment's name, when there is such a run. */
    public Optional<String[]> runStatusAndExperimentName(long runId) {
        return jdbc.sql("SELECT r.status, e.name FROM run r JOIN experiment e ON e.id = r.experiment_id WHERE r.id = ?")
                .param(runId).query((rs, i) -> new String[] {rs.getString(1), rs.getString(2)}).optional();
    }

    public List<FinishedRun> finishedRuns(long experimentId) {
        return jdbc.sql(FINISHED + " WHERE r.experiment_id = ? AND r.status = 'FINISHED' ORDER BY r.idx, r.repeat")
                .param(experimentId).query(this::row).list();
    }

    public Optional<FinishedRun> finishedRun(long runId) {
        return jdbc.sql(FINISHED + " WHERE r.id = ? AND r.status = 'FINISHED'").param(runId).query(this::row)
                .optional();
    }

    /** The baseline runs of these fingerprints, by fingerprint; fingerprints without one are absent. */
    public Map<String, FinishedRun> baselines(Collection<String> fingerprints) {
        Map<String, FinishedRun> found = new HashMap<>();
        jdbc.sql("SELECT b.fingerprint, x.* FROM run_baseline b JOIN (" + FINISHED + ") x ON x.id = b.run_id"
                        + " WHERE b.fingerprint = ANY(?)")
                .param(fingerprints.toArray(String[]::new))
                .query((rs, i) -> found.put(rs.getString(1), read(rs, 1))).list();
        return found;
    }

    /**
     * The fingerprint's finished runs other than these, that finished no later than notAfter: the newest
     * {@code window} of them, the noise model of a side with too few runs of its own.
     */
    public List<FinishedRun> history(String fingerprint, Collection<Long> excluded, OffsetDateTime notAfter, int window) {
        fingerprints.fill();
        return jdbc.sql(FINISHED + """
                         WHERE r.fingerprint = ? AND r.status = 'FINISHED' AND r.finished_at <= ? AND r.id <> ALL(?)
                         ORDER BY r.finished_at DESC LIMIT ?""")
                .params(fingerprint, notAfter, excluded.toArray(Long[]::new), window).query(this::row).list();
    }

    /** The cycle-time percentiles (p50, p99, p99.9) of these runs pooled: their histograms merged. */
    public Comparison.Shape shape(List<Long> runIds) {
        histograms.current(runIds);
        List<long[]> rows = jdbc.sql("""
                        SELECT b, sum(n)::bigint FROM run_histogram, unnest(buckets, counts) AS h(b, n)
                        WHERE run_id = ANY(?) GROUP BY b ORDER BY b""")
                .param(runIds.toArray(Long[]::new))
                .query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}).list();
        long total = rows.stream().mapToLong(r -> r[1]).sum();
        if (total == 0) {
            return null; // imported runs have no cycle times
        }
        return new Comparison.Shape(percentile(rows, total, 0.5), percentile(rows, total, 0.99),
                percentile(rows, total, 0.999));
    }

    /** The nearest-rank percentile, at its bucket's midpoint. */
    private static long percentile(List<long[]> rows, long total, double p) {
        long rank = Math.max(1, (long) Math.ceil(p * total));
        long seen = 0;
        for (long[] row : rows) {
            seen += row[1];
            if (seen >= rank) {
                return CycleBuckets.midNs((int) row[0]);
            }
        }
        return CycleBuckets.midNs((int) rows.get(rows.size() - 1)[0]);
    }

    private FinishedRun row(ResultSet rs, int row) throws SQLException {
        return read(rs, 0);
    }

    /** Reads the FINISHED columns that start after column `skip`. */
    @SuppressWarnings("unchecked")
    private FinishedRun read(ResultSet rs, int skip) throws SQLException {
        Map<String, Double> metrics = new TreeMap<>();
        for (int i = 0; i < Metric.JUDGED.size(); i++) {
            Double value = rs.getObject(skip + METRICS_FROM + i, Double.class); // NULL: not measured (an import)
            if (value != null) {
                metrics.put(Metric.JUDGED.get(i), value);
            }
        }
        return new FinishedRun(rs.getLong(skip + 1), rs.getLong(skip + 2), json.readValue(rs.getString(skip + 3), Map.class),
                json.readValue(rs.getString(skip + 4), Map.class), rs.getLong(skip + 5), metrics,
                rs.getObject(skip + 6, OffsetDateTime.class), counters(rs.getString(skip + 7), rs.getString(skip + 8)),
                warned(rs.getString(skip + 9)));
    }

    /** The deltas by side; a side without counters (an import, an engine before them, a loopback's server) is absent. */
    @SuppressWarnings("unchecked")
    private Map<String, Map<String, Number>> counters(String client, String server) {
        Map<String, Map<String, Number>> sides = new TreeMap<>();
        if (client != null) {
            sides.put("client", json.readValue(client, Map.class));
        }
        if (server != null) {
            sides.put("server", json.readValue(server, Map.class));
        }
        return sides;
    }

    /** The counters named by the warnings ("hw_counters/rcvd_seq_err moved by 12" names hw_counters/rcvd_seq_err). */
    @SuppressWarnings("unchecked")
    private Set<String> warned(String warnings) {
        Set<String> names = new TreeSet<>();
        ((List<Object>) json.readValue(warnings, List.class)).forEach(w -> names.add(String.valueOf(w).split(" ", 2)[0]));
        return names;
    }
}
