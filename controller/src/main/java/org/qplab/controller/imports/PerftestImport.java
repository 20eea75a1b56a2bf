package org.qplab.controller.imports;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

/**
 * Stores a parsed perftest output as a finished experiment with one finished run per message size,
 * its parameters read from perftest's header, so it joins the history (curves, compare) beside
 * qplab's own runs. Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Repository
public class PerftestImport {

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;

    public PerftestImport(JdbcClient jdbc, TransactionTemplate tx, ObjectMapper json) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.json = json;
    }

    /** The engine-style parameters of one result line. */
    static Map<String, Object> params(PerftestOutput out, PerftestOutput.Row row) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("provider", "perftest");
        p.put("tool", out.tool());
        p.put("op", out.op());
        p.put("mode", out.latency() ? "latency" : "bw");
        String connection = out.value("Connection type");
        p.put("transport", connection == null ? "rc" : connection.toLowerCase(Locale.ROOT));
        p.put("msg_size", row.bytes());
        p.put("iterations", row.iterations());
        p.put("threads", 1L);
        p.put("qps_per_thread", out.number("Number of qps") == null ? 1L : out.number("Number of qps"));
        putIfPresent(p, "tx_depth", out.number("TX depth"));
        putIfPresent(p, "signal_every", out.number("CQ Moderation"));
        putIfPresent(p, "mtu", out.number("Mtu"));
        putIfPresent(p, "inline_size", out.number("Max inline data"));
        putIfPresent(p, "device", out.value("Device"));
        if (out.value("Using SRQ") != null) {
            p.put("srq", out.on("Using SRQ") ? "shared" : "none");
        }
        if (out.value("rdma_cm QPs") != null) {
            p.put("rdma_cm", out.on("rdma_cm QPs"));
        }
        if (out.value("PCIe relax order") != null) { // "Unsupported": built without it, so it ran without
            p.put("relaxed_ordering", out.on("PCIe relax order"));
        }
        if (out.value("ibv_wr* API") != null) { // the engine's post_api: ibv_wr_* or ibv_post_send (--use_old_post_send)
            p.put("post_api", out.on("ibv_wr* API") ? "wr" : "legacy");
        }
        return p;
    }

    private static void putIfPresent(Map<String, Object> p, String key, Object value) {
        if (value != null) {
            p.put(key, value);
        }
    }

    /** Stores the import (by that account); returns the experiment's id. */
    public long store(String name, String fileName, PerftestOutput out, String importer) {
        return tx.execute(status -> {
            Map<String, Object> source = new LinkedHashMap<>();
            source.put("name", name);
            Map<String, Object> imported = new LinkedHashMap<>();
            imported.put("from", "perftest");
            imported.put("tool", out.tool());
            imported.put("format", out.format());
            imported.put("file", fileName);
            imported.put("header", out.header());
            if (!out.repairs().isEmpty()) {
                imported.put("repaired", out.repairs().stream().map(repair -> Map.of("line", repair.line(),
                        "message", repair.message())).toList());
            }
            source.put("imported", imported);
            long id = jdbc.sql("""
                            INSERT INTO experiment (name, matrix, status, finished_at, submitted_by)
                            VALUES (?, CAST(? AS jsonb), 'FINISHED', now(), ?) RETURNING id""")
                    .params(name, json.writeValueAsString(source), importer).query(Long.class).single();
            List<PerftestOutput.Row> rows = out.rows();
            for (int i = 0; i < rows.size(); i++) {
                PerftestOutput.Row row = rows.get(i);
                Map<String, Object> params = params(out, row);
                long runId = jdbc.sql("""
                                INSERT INTO run (experiment_id, idx, repeat, params, status, attempt, started_at, finished_at)
                                VALUES (?, ?, 0, CAST(? AS jsonb), 'FINISHED', 1, now(), now()) RETURNING id""")
                        .params(id, i, json.writeValueAsString(params)).query(Long.class).single();
                Map<String, Object> summary = PerftestSummary.of(out, row, params);
                jdbc.sql("""
                                INSERT INTO run_summary (run_id, summary, cycles, messages, bytes, errors, dropped, duration_ns,
                                    bw_avg_bps, bw_peak_bps, msg_rate, cycle_median_ns, cycle_p99_ns, batches)
                                VALUES (?, CAST(? AS jsonb), ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, 0)""")
                        .params(runId, json.writeValueAsString(summary), summary.get("cycles"), summary.get("messages"),
                                summary.get("bytes"), summary.get("errors"), summary.get("duration_ns"),
                                PerftestSummary.number(summary, "bw_avg_bps"), PerftestSummary.number(summary, "bw_peak_bps"),
                                PerftestSummary.number(summary, "msg_rate"), PerftestSummary.cycleNs(summary, "median"),
                                PerftestSummary.cycleNs(summary, "p99"))
                        .update();
            }
            return id;
        });
    }
}
