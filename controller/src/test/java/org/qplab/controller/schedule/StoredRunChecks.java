package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What tests that kill controllers check in PostgreSQL afterwards: that every cycle of a run is stored once, and that
 * no host ran two benchmarks at once; and plain queries for their waits.
 */
final class StoredRunChecks {

    private StoredRunChecks() {
    }

    /**
     * Per run matched by runsWhere (a condition on run r): its intervals count the cycles its stored frames carried (an
     * interval is stored once by its key, a frame once by its seq: one stored twice would break the equality); a
     * finished run's: its summary's cycles, its histogram's (written as it finished), and every frame the agent
     * numbered is there. No run asked for a trace. At least one run matched has FINISHED.
     */
    static void everyCycleOnce(Connection db, String runsWhere) throws SQLException {
        int finished = 0;
        try (ResultSet rs = db.createStatement().executeQuery("""
                SELECT r.id, r.status, s.cycles, s.batches,
                       (SELECT coalesce(sum(cycles), 0) FROM run_interval i WHERE i.run_id = r.id) AS interval_cycles,
                       (SELECT coalesce(sum(cycles), 0) FROM run_frame b WHERE b.run_id = r.id) AS frame_cycles,
                       (SELECT coalesce(sum(cycles), 0) FROM run_histogram h WHERE h.run_id = r.id) AS histogram_cycles,
                       (SELECT count(*) FROM run_frame b WHERE b.run_id = r.id) AS frames,
                       (SELECT count(*) FROM run_trace x WHERE x.run_id = r.id) AS traced
                FROM run r LEFT JOIN run_summary s ON s.run_id = r.id WHERE\s""" + runsWhere)) {
            while (rs.next()) {
                String run = "run " + rs.getLong("id") + " (" + rs.getString("status") + ")";
                assertThat(rs.getLong("interval_cycles")).as(run + ": no interval twice")
                        .isEqualTo(rs.getLong("frame_cycles"));
                assertThat(rs.getLong("traced")).as(run + ": no trace was asked for").isZero();
                if (rs.getString("status").equals("FINISHED")) {
                    finished++;
                    assertThat(rs.getLong("histogram_cycles")).as(run + ": its histogram (written as it finished)")
                            .isEqualTo(rs.getLong("interval_cycles"));
                    assertThat(rs.getLong("interval_cycles")).as(run + ": every cycle").isEqualTo(rs.getLong("cycles"))
                            .isPositive();
                    assertThat(rs.getLong("frames")).as(run + ": every frame").isEqualTo(rs.getLong("batches"));
                }
            }
        }
        assertThat(finished).as("finished runs where " + runsWhere).isPositive();
    }

    /** No host's finished runs overlap in time, as client, server or alone. */
    static void noHostRanTwoBenchmarksAtOnce(Connection db) throws SQLException {
        Map<String, List<Timestamp[]>> byHost = new HashMap<>();
        try (ResultSet rs = db.createStatement().executeQuery("""
                SELECT agent_id, server_agent_id, started_at, finished_at FROM run WHERE status = 'FINISHED'
                ORDER BY started_at""")) {
            while (rs.next()) {
                Timestamp[] span = {rs.getTimestamp(3), rs.getTimestamp(4)};
                for (String host : new String[] {rs.getString(1), rs.getString(2)}) {
                    if (host != null) {
                        byHost.computeIfAbsent(host, h -> new ArrayList<>()).add(span);
                    }
                }
            }
        }
        byHost.forEach((host, spans) -> {
            for (int i = 1; i < spans.size(); i++) {
                assertThat(spans.get(i)[0]).as("%s: a run started at %s, before the one before it ended at %s", host,
                        spans.get(i)[0], spans.get(i - 1)[1]).isAfterOrEqualTo(spans.get(i - 1)[1]);
            }
        });
    }

    static long count(Connection db, String sql) throws SQLException {
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static List<Long> longs(Connection db, String sql) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    static List<String> strings(Connection db, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
