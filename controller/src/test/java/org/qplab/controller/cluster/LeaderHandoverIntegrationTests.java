package org.qplab.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.QplabApplication;
import org.qplab.controller.database.TestDatabase;
import org.qplab.testkit.ControllerProcess;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two controller processes on one PostgreSQL (the first's embedded server; the second logs in as the role qplab with
 * its password, as a lab's second controller would), a lease of 3 s. GET /api/controllers on either shows both alive
 * and exactly one leader, the first. A recurring schedule every 2 s (no agent: its first experiment stays queued and
 * the later occurrences are skipped, each recorded) fires from the leader only, each due time once. The leader killed
 * with SIGKILL (its PostgreSQL goes on): the other says it took over within the lease and a margin, lists itself as
 * the leader and the dead one as not alive, and the schedule goes on firing from it, no due time twice, no gap between
 * two occurrences longer than the handover and a period.
 */
class LeaderHandoverIntegrationTests {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PERIOD = Duration.ofSeconds(2);
    /** How long after the kill the other may take to lead: the lease, a third of it to its next try, and slack. */
    private static final Duration HANDOVER = LEASE.plus(LEASE.dividedBy(3)).plusSeconds(3);
    private static final Pattern OCCURRENCE = Pattern.compile("recurring schedule (\\d+): occurrence due ");

    private static ControllerProcess first;
    private static ControllerProcess second;

    @AfterAll
    static void down() throws Exception {
        if (second != null) {
            second.close(); // first: it uses the first's PostgreSQL, which the first's close stops
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void theOtherControllerTakesOverTheBackgroundJobsWhenTheLeaderDies() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        int pgPort = ControllerProcess.freePort();
        List<String> cluster = List.of("qplab.cluster.lease=" + LEASE.toSeconds() + "s", "qplab.cluster.heartbeat=1s",
                "qplab.cluster.dead-after=4s");
        String admin = "qplab.security.admin-password=" + ControllerIntegrationTest.ADMIN_PASSWORD;
        first = ControllerProcess.start(launch(Map.of()), Path.of("target"), "leader-a", ControllerProcess.freePort(),
                dataDir, pgPort, with(cluster, admin, "qplab.cluster.name=controller-a"));
        second = ControllerProcess.start(launch(Map.of("SPRING_DATASOURCE_PASSWORD", TestDatabase.password(dataDir))),
                Path.of("target"), "leader-b", ControllerProcess.freePort(), TestDatabase.freshDataDir(), 0,
                with(cluster, admin, "qplab.cluster.name=controller-b",
                        "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + pgPort + "/qplab",
                        "spring.datasource.username=qplab"));

        Map<String, Object> a = one(controllers(first), "self", true);
        Map<String, Object> b = one(controllers(second), "self", true);
        assertThat(a).containsEntry("name", "controller-a");
        assertThat(b).containsEntry("name", "controller-b");
        String aId = (String) a.get("id");
        String bId = (String) b.get("id");
        Await.until("controller-a, started first, leads", Duration.ofSeconds(10),
                () -> first.log().contains("controller " + aId + " (controller-a) leads the background jobs now"),
                first::log);
        for (ControllerProcess answering : List.of(first, second)) {
            List<Map<String, Object>> listed = controllers(answering);
            assertThat(listed).as("the controllers as %s lists them", answering.url())
                    .filteredOn(c -> List.of(aId, bId).contains(c.get("id"))).hasSize(2)
                    .allSatisfy(c -> assertThat(c).containsEntry("alive", true).containsEntry("agents", 0));
            assertThat(listed).filteredOn(c -> Boolean.TRUE.equals(c.get("leader"))).as("leaders")
                    .singleElement().satisfies(c -> assertThat(c).containsEntry("id", aId));
        }
        assertThat(second.log()).doesNotContain("leads the background jobs now");

        long schedule = second.create("/api/schedules", "application/json", "{\"name\": \"through a handover\", "
                + "\"cron\": \"*/2 * * * * *\", \"matrix\": \"base: {provider: tcp, msg_size: 4K, iterations: 100}\"}");
        try (Connection db = TestDatabase.connect(dataDir, pgPort)) {
            // by the leader's log: it logs an occurrence just after its transaction commits
            Await.until("three occurrences fired by the leader while both controllers run", Duration.ofSeconds(20),
                    () -> fired(first.log(), schedule) >= 3, () -> first.log() + "\n----\n" + second.log());
            assertThat(count(db, "SELECT count(*) FROM recurring_occurrence WHERE recurring_id = " + schedule))
                    .as("occurrences recorded").isGreaterThanOrEqualTo(3);
            assertThat(fired(second.log(), schedule)).as("occurrences the follower fired").isZero();

            first.kill();
            Instant killed = Instant.now();
            Await.until("controller-b says it leads", HANDOVER,
                    () -> second.log().contains("controller " + bId + " (controller-b) leads the background jobs now "
                            + "(lease 'background', PT3S at a time), taking over from controller " + aId
                            + " (controller-a), whose lease expired"),
                    second::log);
            Duration handover = Duration.between(killed, Instant.now());
            assertThat(handover).as("no takeover before the dead leader's lease could have expired")
                    .isGreaterThan(LEASE.minus(LEASE.dividedBy(3)).minusMillis(500));
            List<Map<String, Object>> listed = controllers(second);
            assertThat(listed).filteredOn(c -> Boolean.TRUE.equals(c.get("leader"))).singleElement()
                    .satisfies(c -> assertThat(c).containsEntry("id", bId).containsEntry("self", true));
            Await.until("controller-a listed as not alive", Duration.ofSeconds(10),
                    () -> !(Boolean) one(controllers(second), "id", aId).get("alive"), second::log);

            Await.until("three occurrences fired by controller-b", Duration.ofSeconds(20),
                    () -> count(db, "SELECT count(*) FROM recurring_occurrence WHERE recurring_id = " + schedule
                            + " AND fired_at > '" + killed + "'") >= 3, second::log);
            post(second, "/api/schedules/" + schedule + "/disable"); // so that its log and the table can be compared
            Thread.sleep(1500);
            assertThat(fired(second.log(), schedule)).as("the occurrences since the kill, all fired by controller-b")
                    .isEqualTo(count(db, "SELECT count(*) FROM recurring_occurrence WHERE recurring_id = " + schedule
                            + " AND fired_at > '" + killed + "'"));

            assertThat(count(db, "SELECT count(*) FROM (SELECT due_at FROM recurring_occurrence WHERE recurring_id = "
                    + schedule + " GROUP BY due_at HAVING count(*) > 1) twice")).as("no due time fired twice").isZero();
            List<Instant> firedAt = instants(db, "SELECT fired_at FROM recurring_occurrence WHERE recurring_id = "
                    + schedule + " ORDER BY due_at");
            List<String> outcomes = strings(db, "SELECT outcome FROM recurring_occurrence WHERE recurring_id = "
                    + schedule + " ORDER BY due_at");
            assertThat(outcomes.get(0)).isEqualTo("SUBMITTED");
            assertThat(outcomes.subList(1, outcomes.size())).as("no agent: the first experiment stays queued")
                    .containsOnly("SKIPPED");
            Duration longest = Duration.ZERO;
            for (int i = 1; i < firedAt.size(); i++) {
                Duration gap = Duration.between(firedAt.get(i - 1), firedAt.get(i));
                longest = gap.compareTo(longest) > 0 ? gap : longest;
            }
            assertThat(longest).as("the longest gap between two occurrences (fired at %s; handover %s)", firedAt,
                    handover).isLessThanOrEqualTo(handover.plus(PERIOD).plusSeconds(2));
        }
    }

    /**
     * This module's controller (its classes), C1 only as the packaged jar's launch is: a controller that lives a minute
     * starts sooner on less CPU. The second logs in to the first's PostgreSQL with the password in its environment.
     */
    private static ControllerProcess.Launch launch(Map<String, String> environment) {
        List<String> java = new ArrayList<>(ControllerProcess.Launch.classes(System.getProperty("java.class.path"),
                QplabApplication.class.getName()).java());
        java.add(1, "-XX:TieredStopAtLevel=1");
        return new ControllerProcess.Launch(java, environment);
    }

    private static List<String> with(List<String> properties, String... more) {
        List<String> all = new ArrayList<>(properties);
        all.addAll(List.of(more));
        return all;
    }

    /**
     * The admin's token of the second start: each start gives the admin a fresh CLI token and revokes the one before,
     * whichever controller on the database made it.
     */
    private static String token() {
        return second.token();
    }

    /** GET /api/controllers on controller, as the admin. */
    private static List<Map<String, Object>> controllers(ControllerProcess controller) throws Exception {
        HttpResponse<String> listed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(controller.url() + "/api/controllers")).header("Authorization", "Bearer " + token())
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
        return JsonMapper.shared().readValue(listed.body(), new TypeReference<>() { });
    }

    /** POSTs to path on controller, as the admin, expecting 200. */
    private static void post(ControllerProcess controller, String path) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(controller.url() + path))
                .header("Authorization", "Bearer " + token()).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isEqualTo(200);
    }

    private static Map<String, Object> one(List<Map<String, Object>> controllers, String key, Object value) {
        List<Map<String, Object>> matching = controllers.stream().filter(c -> value.equals(c.get(key))).toList();
        assertThat(matching).as("%s = %s in %s", key, value, controllers).hasSize(1);
        return new HashMap<>(matching.get(0));
    }

    /** How many occurrences of schedule a controller's log says it fired. */
    private static long fired(String log, long schedule) {
        Matcher m = OCCURRENCE.matcher(log);
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(1)) == schedule ? 1 : 0;
        }
        return n;
    }

    private static long count(Connection db, String sql) throws SQLException {
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<Instant> instants(Connection db, String sql) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getTimestamp(1).toInstant());
            }
        }
        return out;
    }

    private static List<String> strings(Connection db, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = db.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
