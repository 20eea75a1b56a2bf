package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.OwnDatabase;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;

/**
 * Two controllers on one database during an upgrade (issue 38's bad input): the newer one has migrated the schema past
 * what this controller carries (a row of flyway_schema_history as a newer controller's Flyway writes it). This
 * controller then claims no run and fires no schedule, and says why naming both versions; once the schema is one it
 * knows again (here the row deleted), it schedules, and the queued run finishes.
 */
@OwnDatabase
@ExtendWith(OutputCaptureExtension.class)
class SchemaVersionIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private SchemaVersion schema;

    @Test
    void aControllerOlderThanTheDatabasesSchemaSchedulesNothingAndSaysWhy(CapturedOutput output) throws Exception {
        try (AgentProcess agent = AgentProcess.start(port, "schema-agent", TOKEN)) {
            awaitAgentsConnected(List.of("schema-agent"), agent::log);
            String known = schema.known().toString();
            assertThat(schema.allowsScheduling()).as("the schema this controller migrated").isTrue();

            jdbc.sql("""
                    INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,
                                                       installed_by, execution_time, success)
                    SELECT max(installed_rank) + 1, '9999', 'from a newer controller', 'SQL',
                           'V9999__from_a_newer_controller.sql', 0, 'qplab', 1, true FROM flyway_schema_history""").update();
            schema.check();
            assertThat(schema.allowsScheduling()).isFalse();
            String why = "the database's schema is at version 9999, newer than this controller's " + known;
            assertThat(schema.refusal()).startsWith(why);
            assertThat(output.getOut()).contains(why);

            long id = ((Number) http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                    .bodyValue("base: {provider: tcp, msg_size: 4K, iterations: 200}\n").exchange().expectStatus()
                    .isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id")).longValue();
            long schedule = ((Number) http().post().uri("/api/schedules").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("cron", "*/2 * * * * *", "matrix", "base: {provider: tcp, msg_size: 4K, iterations: 100}"))
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                    .get("id")).longValue();
            Thread.sleep(4_500); // two firings of the schedule, and a dispatch pass every second
            assertThat(jdbc.sql("SELECT status FROM run WHERE experiment_id = ?").param(id).query(String.class).list())
                    .as("nothing claimed while the schema is newer").containsExactly("QUEUED");
            assertThat(count("recurring_occurrence WHERE recurring_id = " + schedule)).as("nothing fired").isZero();
            http().post().uri("/api/schedules/{id}/disable", schedule).exchange().expectStatus().isOk();

            jdbc.sql("DELETE FROM flyway_schema_history WHERE version = '9999'").update();
            schema.check();
            assertThat(schema.allowsScheduling()).isTrue();
            assertThat(output.getOut()).contains("which this controller knows: it schedules again");
            assertThat(awaitExperimentEnd(id, Duration.ofMinutes(1), agent::log).get("status")).isEqualTo("FINISHED");
        }
    }
}
