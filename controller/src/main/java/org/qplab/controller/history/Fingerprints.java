package org.qplab.controller.history;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.run.Fingerprint;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import tools.jackson.databind.ObjectMapper;

/**
 * Keeps run.fingerprint filled in for finished runs (V17__run_fingerprint.sql): before a fingerprint's runs are
 * looked up, the finished runs without one get it, computed from their parameters and host facts. However a run
 * came to finish (an agent, a recovery, an import), it is found by its fingerprint from then on. Blocking.
 */
@Component
public class Fingerprints {

    private static final int BATCH = 1000;

    private record Missing(long id, String params, String hostFacts) {}

    /** What a fingerprint is made of: a run's parameters and host facts. */
    public record Identity(Map<String, Object> params, Map<String, Object> hostFacts) {}

    private final JdbcClient jdbc;
    private final ObjectMapper json;

    public Fingerprints(JdbcClient jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** Fills in the fingerprint of every finished run that lacks it (a partial index finds them). */
    @SuppressWarnings("unchecked")
    public void fill() {
        while (true) {
            List<Missing> missing = jdbc.sql("""
                            SELECT id, params::text, host_facts::text FROM run
                            WHERE fingerprint IS NULL AND status = 'FINISHED' ORDER BY id LIMIT ?""")
                    .param(BATCH).query((rs, i) -> new Missing(rs.getLong(1), rs.getString(2), rs.getString(3))).list();
            if (missing.isEmpty()) {
                return;
            }
            Long[] ids = new Long[missing.size()];
            String[] prints = new String[missing.size()];
            for (int i = 0; i < ids.length; i++) {
                Missing run = missing.get(i);
                ids[i] = run.id();
                prints[i] = Fingerprint.of(json.readValue(run.params(), Map.class),
                        run.hostFacts() == null ? null : json.readValue(run.hostFacts(), Map.class));
            }
            jdbc.sql("""
                            UPDATE run SET fingerprint = f.print FROM unnest(?::bigint[], ?::text[]) AS f(id, print)
                            WHERE run.id = f.id AND run.fingerprint IS NULL""")
                    .params(ids, prints).update();
            if (missing.size() < BATCH) {
                return;
            }
        }
    }

    /** The parameters and host facts of the fingerprint's newest finished run, if it has one. */
    @SuppressWarnings("unchecked")
    public Optional<Identity> identity(String fingerprint) {
        fill();
        return jdbc.sql("""
                        SELECT params::text, host_facts::text FROM run WHERE fingerprint = ? AND status = 'FINISHED'
                        ORDER BY finished_at DESC LIMIT 1""")
                .param(fingerprint)
                .query((rs, i) -> new Identity(json.readValue(rs.getString(1), Map.class),
                        rs.getString(2) == null ? null : json.readValue(rs.getString(2), Map.class)))
                .optional();
    }

    /** The metrics (names, in {@link Metric#ALL}'s order) that at least one finished run of the fingerprint measured. */
    public List<String> measured(String fingerprint) {
        fill();
        String columns = String.join(", ", Metric.ALL.stream().map(m -> "bool_or(" + m.sql() + " IS NOT NULL)").toList());
        List<Boolean> found = jdbc.sql("SELECT " + columns + """
                         FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.fingerprint = ? AND r.status = 'FINISHED'""")
                .param(fingerprint).query((rs, i) -> {
                    List<Boolean> flags = new ArrayList<>();
                    for (int k = 1; k <= Metric.ALL.size(); k++) {
                        flags.add(rs.getBoolean(k));
                    }
                    return flags;
                }).single();
        List<String> names = new ArrayList<>();
        for (int k = 0; k < Metric.ALL.size(); k++) {
            if (found.get(k)) {
                names.add(Metric.ALL.get(k).name());
            }
        }
        return names;
    }

    /** The fingerprint's finished runs that measured the metric, oldest first, with their value. */
    public List<FingerprintHistory.RunValue> values(String fingerprint, Metric metric) {
        fill();
        return jdbc.sql("""
                        SELECT r.id, r.experiment_id, e.name, r.finished_at, %s
                        FROM run r JOIN run_summary s ON s.run_id = r.id JOIN experiment e ON e.id = r.experiment_id
                        WHERE r.fingerprint = ? AND r.status = 'FINISHED' AND %s IS NOT NULL
                        ORDER BY r.finished_at, r.id""".formatted(metric.sql(), metric.sql()))
                .param(fingerprint)
                .query((rs, i) -> new FingerprintHistory.RunValue(rs.getLong(1), rs.getLong(2), rs.getString(3),
                        rs.getObject(4, OffsetDateTime.class), rs.getDouble(5)))
                .list();
    }
}
