package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.ObjectMapper;

/**
 * V23 rewrites the perftest imports stored before it (perftest's keys: bw_average in MB/s, t_typical_us, ...) into
 * the summary an import stores now (the engine's keys, {@link PerftestSummary}), and leaves every other run alone.
 * The schema at V22, in a schema of its own in the test's database, holds imports written as the importer wrote
 * them until then; after Flyway's migrate each summary equals what the import stores today for the same line.
 */
class PerftestImportMigrationIntegrationTests extends ControllerIntegrationTest {

    private static final String SCHEMA = "before_v23";
    private static final List<String> FILES = List.of("ib_send_bw-a.txt", "ib_write_bw-gbits.txt", "ib_send_lat-a.txt",
            "ib_read_lat.json");

    @Autowired
    private DataSource dataSource;

    @Autowired
    private ObjectMapper json;

    private Flyway flyway(String target) {
        return Flyway.configure().dataSource(dataSource).schemas(SCHEMA).locations("classpath:db/migration")
                .target(target).load();
    }

    @Test
    void storedImportsBecomeTheSummaryAnImportStoresNowAndOtherRunsStayAsTheyWere() throws Exception {
        try {
            flyway("22").migrate();
            Map<Long, Map<String, Object>> expected = new LinkedHashMap<>();
            for (String file : FILES) {
                String text = PerftestFixtures.fixture(file);
                PerftestOutput out = PerftestJson.looksLikeJson(text) ? PerftestJson.parse(text) : PerftestOutput.parse(text);
                long experiment = jdbc.sql("INSERT INTO " + SCHEMA + ".experiment (name, matrix, status) VALUES (?, '{}', "
                        + "'FINISHED') RETURNING id").param(file).query(Long.class).single();
                for (int i = 0; i < out.rows().size(); i++) {
                    PerftestOutput.Row row = out.rows().get(i);
                    Map<String, Object> params = PerftestImport.params(out, row);
                    long run = storeAsBeforeV23(experiment, i, out, row, params);
                    expected.put(run, PerftestSummary.of(out, row, params));
                }
            }
            long experiment = jdbc.sql("INSERT INTO " + SCHEMA + ".experiment (name, matrix, status) VALUES ('native', '{}', "
                    + "'FINISHED') RETURNING id").query(Long.class).single();
            String engine = "{\"provider\": \"tcp\", \"mode\": \"bw\", \"bw_avg_bps\": 1.5e9, \"cycle_ns\": {\"median\": 900}}";
            long nativeRun = insertRun(experiment, 0, "{\"provider\": \"tcp\"}", engine, 10, 10, 640, 100, 1.5e9, 1.6e9, 1e8, 900.0, 990.0);

            assertThat(flyway("23").migrate().migrationsExecuted).isEqualTo(1);

            expected.forEach((run, summary) -> assertThat(normalized(stored(run))).as("run %d", run)
                    .isEqualTo(normalized(summary)));
            assertThat(normalized(stored(nativeRun))).as("an engine run").isEqualTo(normalized(json.readValue(engine, Map.class)));
            assertThat(expected).hasSizeGreaterThan(40);
        } finally {
            jdbc.sql("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE").update();
        }
    }

    /** What PerftestImport stored until V23: perftest's values under their column names, the history's columns. */
    private long storeAsBeforeV23(long experiment, int index, PerftestOutput out, PerftestOutput.Row row,
                                  Map<String, Object> params) {
        double unit = out.bandwidthUnit().equals("Gb") ? 1e9 / 8 : 1024.0 * 1024.0;
        Map<String, Double> v = row.values();
        long qps = ((Number) params.get("qps_per_thread")).longValue();
        long messages = out.latency() ? row.iterations() : row.iterations() * qps;
        long bytes = messages * row.bytes();
        Double bwAvg = out.latency() ? null : v.get("bw_average") * unit;
        Double bwPeak = out.latency() ? null : v.get("bw_peak") * unit;
        Double msgRate = out.latency() ? null : v.get("msg_rate_mpps") * 1e6;
        Double median = out.latency() ? v.get("t_typical_us") * 1e3 : null;
        Double p99 = out.latency() && v.containsKey("t_p99_us") ? v.get("t_p99_us") * 1e3 : null;
        long durationNs = out.latency() ? Math.round(v.get("t_avg_us") * 1e3 * row.iterations())
                : bwAvg > 0 ? Math.round(bytes / bwAvg * 1e9) : 0;
        Map<String, Object> summary = new LinkedHashMap<>(v);
        summary.put("imported_from", "perftest");
        summary.put("tool", out.tool());
        summary.put("line", row.line());
        summary.put("bw_unit", out.latency() ? null : out.bandwidthUnit() + "/sec");
        return insertRun(experiment, index, json.writeValueAsString(params), json.writeValueAsString(summary),
                row.iterations(), messages, bytes, durationNs, bwAvg, bwPeak, msgRate, median, p99);
    }

    private long insertRun(long experiment, int index, String params, String summary, long cycles, long messages, long bytes,
                           long durationNs, Double bwAvg, Double bwPeak, Double msgRate, Double median, Double p99) {
        long run = jdbc.sql("INSERT INTO " + SCHEMA + ".run (experiment_id, idx, params, status) VALUES (?, ?, CAST(? AS jsonb), "
                + "'FINISHED') RETURNING id").params(experiment, index, params).query(Long.class).single();
        jdbc.sql("INSERT INTO " + SCHEMA + ".run_summary (run_id, summary, cycles, messages, bytes, errors, dropped, duration_ns, "
                        + "bw_avg_bps, bw_peak_bps, msg_rate, cycle_median_ns, cycle_p99_ns, batches) "
                        + "VALUES (?, CAST(? AS jsonb), ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?, 0)")
                .params(run, summary, cycles, messages, bytes, durationNs, bwAvg, bwPeak, msgRate, median, p99).update();
        return run;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> stored(long run) {
        return json.readValue(jdbc.sql("SELECT summary::text FROM " + SCHEMA + ".run_summary WHERE run_id = ?").param(run)
                .query(String.class).single(), Map.class);
    }

    /** Maps sorted by key, every number a double: JSON's 5000 and 5000.0 are one value. */
    private static Object normalized(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> sorted = new TreeMap<>();
            map.forEach((k, v) -> sorted.put((String) k, normalized(v)));
            return sorted;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(PerftestImportMigrationIntegrationTests::normalized).toList();
        }
        return value instanceof Number n ? (Object) n.doubleValue() : value;
    }
}
