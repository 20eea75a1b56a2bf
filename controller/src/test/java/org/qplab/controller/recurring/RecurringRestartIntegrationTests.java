package org.qplab.controller.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.database.TestDatabase;
import org.qplab.testkit.ControllerProcess;

/**
 * A recurring schedule through a controller killed with SIGKILL and started again on the same data directory: the
 * schedule is still there and fires; the occurrences that fell due while no controller ran fire once, late (not once
 * per missed period), and the next is computed from then. No agent: the first occurrence's experiment stays queued,
 * so the later ones are skipped, each recorded once. Checked in PostgreSQL.
 */
class RecurringRestartIntegrationTests {

    private static ControllerProcess controller;

    @AfterAll
    static void down() throws Exception {
        if (controller != null) {
            controller.close();
        }
    }

    @Test
    void occurrencesMissedWhileTheControllerWasDownFireOnceAfterItsRestart() throws Exception {
        int port = ControllerProcess.freePort();
        int pgPort = ControllerProcess.freePort();
        Path dataDir = TestDatabase.freshDataDir();
        controller = ControllerIntegrationTest.startProcess("recurring-restart", port, dataDir, pgPort, List.of());
        long id = create("{\"name\": \"through a crash\", \"cron\": \"*/2 * * * * *\", "
                + "\"matrix\": \"base: {provider: tcp, msg_size: 4K, iterations: 100}\"}");

        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            Await.until("a first occurrence", Duration.ofSeconds(30),
                    () -> count(db, "SELECT count(*) FROM recurring_occurrence WHERE recurring_id = " + id) >= 1,
                    controller::log);
        }
        controller.kill();
        Instant killed = Instant.now();
        Thread.sleep(7000);
        Instant restarting = Instant.now();
        controller.restart(); // stops the PostgreSQL the killed controller left running, and starts its own
        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            Await.until("two occurrences fired since the restart", Duration.ofSeconds(60), () -> count(db,
                    "SELECT count(*) FROM recurring_occurrence WHERE recurring_id = " + id + " AND fired_at > '"
                            + restarting + "'") >= 2, controller::log);

            List<Instant[]> since = new ArrayList<>(); // due_at, fired_at of the occurrences due after the kill
            try (ResultSet rs = db.createStatement().executeQuery("SELECT due_at, fired_at FROM recurring_occurrence "
                    + "WHERE recurring_id = " + id + " AND due_at > '" + killed + "' ORDER BY due_at")) {
                while (rs.next()) {
                    since.add(new Instant[] {rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant()});
                }
            }
            List<Instant[]> missed = since.stream().filter(o -> o[0].isBefore(restarting)).toList();
            assertThat(missed).as("at least three periods passed while it was down; they fire once").hasSize(1);
            assertThat(missed.get(0)[1]).as("late, after the restart").isAfter(restarting);
            assertThat(since.get(1)[0]).as("the next is computed from when the missed one fired")
                    .isAfter(missed.get(0)[1].minusSeconds(1)).isAfter(restarting);
            assertThat(count(db, "SELECT count(*) FROM recurring WHERE enabled AND next_run_at > now() - interval '5 s' "
                    + "AND id = " + id)).as("still enabled, with its next run ahead").isEqualTo(1);
            assertThat(count(db, "SELECT count(*) FROM (SELECT due_at FROM recurring_occurrence WHERE recurring_id = "
                    + id + " GROUP BY due_at HAVING count(*) > 1) twice")).as("no due time fired twice").isZero();
        }
    }

    private static long create(String json) throws Exception {
        return controller.create("/api/schedules", "application/json", json);
    }

    private static long count(Connection db, String sql) throws SQLException {
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
