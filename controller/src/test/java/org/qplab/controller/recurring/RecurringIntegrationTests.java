package org.qplab.controller.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.cli.QplabCli;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Recurring experiments on a real controller and database, with a real agent running tcp on loopback: a cron schedule
 * every 2 s made with ./qplab schedule fires experiments that finish, and stops when disabled; an occurrence whose
 * previous experiment still runs is skipped and the skip recorded; two claims of one due time, each in its own
 * transaction, let one win; and the schedules a 400 refuses (a bad cron quoted, neither or both of cron and
 * everyHours, one more frequent than its matrix's runs).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("unchecked")
class RecurringIntegrationTests extends ControllerIntegrationTest {

    private AgentProcess agent;
    @TempDir
    Path dir;
    @Autowired
    RecurringRepository repository;
    @Autowired
    TransactionTemplate tx;

    @BeforeAll
    void startTheAgent() throws Exception {
        agent = AgentProcess.start(port, "recurring-agent", TOKEN);
        awaitAgentsConnected(List.of("recurring-agent"), () -> agent.log());
    }

    @AfterAll
    void stopTheAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void aCronScheduleEveryTwoSecondsFiresExperimentsThatFinishUntilItIsDisabled() throws Exception {
        Path file = dir.resolve("nightly.yaml");
        Files.writeString(file, "name: recurring tcp\nbase: {provider: tcp, msg_size: 4K, iterations: 200}\n");
        QplabCli.Result made = QplabCli.run(port, adminToken(), "schedule", file.toString(), "--cron", "*/2 * * * * *",
                "--name", "every two seconds");
        assertThat(made.exit()).as("stderr: %s", made.err()).isZero();
        long id = Long.parseLong(made.out().strip());
        assertThat(made.err()).startsWith("schedule " + id + ": next run 20");

        Await.until("two occurrences whose experiments finished", Duration.ofSeconds(90), () ->
                jdbc.sql("""
                        SELECT count(*) FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                        WHERE o.recurring_id = ? AND o.outcome = 'SUBMITTED' AND e.status = 'FINISHED'""")
                        .param(id).query(Long.class).single() >= 2, () -> schedule(id) + "\n" + agent.log());

        Map<String, Object> disabled = http().post().uri("/api/schedules/{id}/disable", id).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(disabled).containsEntry("enabled", false).doesNotContainKey("nextRunAt")
                .containsEntry("name", "every two seconds").containsEntry("cron", "*/2 * * * * *");
        long occurrences = count("recurring_occurrence WHERE recurring_id = " + id);
        Thread.sleep(5000);
        assertThat(count("recurring_occurrence WHERE recurring_id = " + id)).as("disabled, it fires no more")
                .isEqualTo(occurrences);

        Map<String, Object> schedule = schedule(id);
        List<Map<String, Object>> history = (List<Map<String, Object>>) schedule.get("occurrences");
        assertThat(history).hasSize((int) occurrences);
        assertThat(history).extracting(o -> OffsetDateTime.parse((String) o.get("dueAt")))
                .as("newest first, one per due time, each on an even second")
                .isSortedAccordingTo((a, b) -> b.compareTo(a)).doesNotHaveDuplicates()
                .allSatisfy(due -> assertThat(due.getSecond() % 2).isZero());
        assertThat(history).filteredOn(o -> o.get("outcome").equals("SUBMITTED")).allSatisfy(o -> {
            Map<String, Object> experiment = http().get().uri("/api/experiments/{id}", o.get("experimentId")).exchange()
                    .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(experiment).containsEntry("name", "recurring tcp").containsEntry("submittedBy", "admin");
        });
        assertThat(schedule.get("last")).isEqualTo(history.get(0));

        QplabCli.Result listed = QplabCli.run(port, adminToken(), "schedules");
        assertThat(listed.exit()).as("stderr: %s", listed.err()).isZero();
        assertThat(listed.out()).startsWith("id,name,enabled,cron,every_hours,time_zone,next_run_at,owner,last_due,"
                + "last_outcome,last_experiment,last_reason\n").contains("\n" + id + ",every two seconds,false,*/2 * * * * *,,");

        Map<String, Object> enabled = http().post().uri("/api/schedules/{id}/enable", id).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(enabled).containsEntry("enabled", true).containsKey("nextRunAt");
        assertThat(OffsetDateTime.parse((String) enabled.get("nextRunAt"))).as("from now on, nothing missed fires")
                .isAfter(OffsetDateTime.now().minusSeconds(1));
        http().delete().uri("/api/schedules/{id}", id).exchange().expectStatus().isNoContent();
        http().get().uri("/api/schedules/{id}", id).exchange().expectStatus().isNotFound();
        assertThat(count("recurring_occurrence WHERE recurring_id = " + id)).isZero();
    }

    /** Runs paced to 100 cycles a second for 1,000 cycles last 10 s: the occurrences after the first are skipped. */
    @Test
    void anOccurrenceWhosePreviousExperimentStillRunsIsSkippedAndTheSkipRecorded() throws Exception {
        long id = create(Map.of("name", "overlapping", "cron", "*/2 * * * * *", "matrix",
                "base: {provider: tcp, msg_size: 3000, iterations: 1000, rate_limit: 100}\n"));
        try {
            Await.until("a skipped occurrence", Duration.ofSeconds(60), () ->
                    count("recurring_occurrence WHERE outcome = 'SKIPPED' AND recurring_id = " + id) >= 2,
                    () -> schedule(id) + "\n" + agent.log());
            http().post().uri("/api/schedules/{id}/disable", id).exchange().expectStatus().isOk();
            List<Map<String, Object>> history = (List<Map<String, Object>>) schedule(id).get("occurrences");
            List<Map<String, Object>> submitted = history.stream()
                    .filter(o -> o.get("outcome").equals("SUBMITTED")).toList();
            assertThat(submitted).as("one occurrence at a time: %s", history).hasSize(1);
            Object experiment = submitted.get(0).get("experimentId");
            assertThat(history.get(history.size() - 1)).isEqualTo(submitted.get(0));
            assertThat(history).filteredOn(o -> o.get("outcome").equals("SKIPPED")).allSatisfy(o -> {
                assertThat(o).doesNotContainKey("experimentId");
                assertThat((String) o.get("reason")).startsWith("experiment " + experiment + " of the occurrence due ")
                        .containsAnyOf("is still RUNNING", "is still QUEUED").endsWith("one occurrence runs at a time");
            });
            http().post().uri("/api/experiments/{id}/cancel", experiment).exchange().expectStatus().isOk();
        } finally {
            http().post().uri("/api/schedules/{id}/disable", id).exchange();
        }
    }

    /** Each claim in its own transaction, held open a while so the two overlap: the second waits, then matches nothing. */
    @Test
    void twoClaimsOfOneDueTimeLetOnlyOneFireIt() throws Exception {
        Instant due = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        long id = repository.create("claimed twice", "base: {provider: tcp}", "application/yaml",
                new Cadence(null, 24, ZoneOffset.UTC), "admin", due);
        OffsetDateTime stored = jdbc.sql("SELECT next_run_at FROM recurring WHERE id = ?").param(id)
                .query(OffsetDateTime.class).single();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Boolean>> claims = List.of(pool.submit(() -> claimAfter(start, id, stored)),
                    pool.submit(() -> claimAfter(start, id, stored)));
            start.countDown();
            assertThat(List.of(claims.get(0).get(30, TimeUnit.SECONDS), claims.get(1).get(30, TimeUnit.SECONDS)))
                    .containsExactlyInAnyOrder(true, false);
        } finally {
            pool.shutdownNow();
        }
        assertThat(claim(id, stored, due.plus(Duration.ofHours(48)))).as("once claimed, "
                + "that due time is gone").isFalse();
        assertThat(jdbc.sql("SELECT next_run_at FROM recurring WHERE id = ?").param(id).query(OffsetDateTime.class)
                .single().toInstant()).isEqualTo(due.plus(Duration.ofHours(24)));
        http().post().uri("/api/schedules/{id}/disable", id).exchange().expectStatus().isOk();
        assertThat(claim(id, null, due)).as("disabled, nothing is due").isFalse();
        repository.delete(id);
    }

    private boolean claim(long id, OffsetDateTime due, Instant following) {
        return Boolean.TRUE.equals(tx.execute(s -> repository.claim(id, due, following)));
    }

    private Boolean claimAfter(CountDownLatch start, long id, OffsetDateTime due) throws InterruptedException {
        start.await();
        return tx.execute(s -> {
            boolean won = repository.claim(id, due, due.toInstant().plus(Duration.ofHours(24)));
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return won;
        });
    }

    @Test
    void anInvalidCronIsA400QuotingItAndSayingWhyWithTheMatrixsOwnViolations() {
        Map<String, Object> refused = refuse(Map.of("cron", "0 2 * * *", "matrix", "base: {provider: tcp, msg_size: 0}"));
        assertThat(refused).containsEntry("error", "invalid schedule");
        assertThat(violations(refused)).extracting(v -> v.get("field")).contains("cron", "matrix.base.msg_size");
        assertThat(message(refused, "cron")).startsWith("cron '0 2 * * *' is not a cron expression: ")
                .contains("6 fields", "'0 0 2 * * *' for 02:00 every day");

        assertThat(message(refuse(Map.of("cron", "0 0 0 30 2 *", "matrix", "base: {provider: tcp}")), "cron"))
                .isEqualTo("cron '0 0 0 30 2 *' never fires: no date matches it");
        assertThat(message(refuse(Map.of("matrix", "base: {provider: tcp}")), ""))
                .startsWith("say when it fires: either cron");
        assertThat(message(refuse(Map.of("cron", "0 0 2 * * *", "everyHours", 24, "matrix", "base: {provider: tcp}")), ""))
                .isEqualTo("give either cron or everyHours, not both (cron '0 0 2 * * *', everyHours 24)");
        assertThat(message(refuse(Map.of("every_hours", 0, "matrix", "base: {provider: tcp}")), "everyHours"))
                .isEqualTo("must be between 1 and 8784, got 0");
        assertThat(count("recurring WHERE cron = '0 2 * * *'")).as("nothing stored").isZero();
    }

    @Test
    void aScheduleMoreFrequentThanItsMatrixsRunsIsA400NamingBoth() {
        Map<String, Object> refused = refuse(Map.of("cron", "*/2 * * * * *", "matrix",
                "base: {provider: tcp, duration_ms: 5000}\ndimensions: {msg_size: [64, 4K]}\n"));
        assertThat(message(refused, "cron")).startsWith("cron '*/2 * * * * *' fires every 2 s at its closest, but the "
                + "matrix's runs take an estimated 1").contains("by duration_ms", "fire less often, or make the matrix shorter");

        long id = create(Map.of("cron", "0 0 2 * * *", "matrix", Map.of("name", "nightly json",
                "base", Map.of("provider", "tcp", "msg_size", "4K", "duration_ms", 5000))));
        Map<String, Object> nightly = schedule(id);
        assertThat(nightly).containsEntry("name", "nightly json").containsEntry("contentType", "application/json")
                .containsEntry("enabled", true).containsEntry("occurrences", List.of());
        assertThat(OffsetDateTime.parse((String) nightly.get("nextRunAt")).atZoneSameInstant(java.time.ZoneId.systemDefault())
                .toLocalTime()).isEqualTo(java.time.LocalTime.of(2, 0));
        http().delete().uri("/api/schedules/{id}", id).exchange().expectStatus().isNoContent();
    }

    private long create(Map<String, Object> body) {
        Map<String, Object> made = http().post().uri("/api/schedules").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
        return ((Number) made.get("id")).longValue();
    }

    private Map<String, Object> refuse(Map<String, Object> body) {
        return http().post().uri("/api/schedules").contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange()
                .expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    private Map<String, Object> schedule(long id) {
        return http().get().uri("/api/schedules/{id}", id).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private static List<Map<String, Object>> violations(Map<String, Object> refused) {
        return (List<Map<String, Object>>) refused.get("violations");
    }

    private static String message(Map<String, Object> refused, String field) {
        return (String) violations(refused).stream().filter(v -> v.get("field").equals(field)).findFirst()
                .orElseThrow(() -> new AssertionError("no violation of " + field + ": " + refused)).get("message");
    }
}
