package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.NetworkNamespaces;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * Issue 36's "real runs": a nightly-style recurring experiment between two hosts (network namespaces, real agents,
 * tcp over their veth links), fired by its cron a dozen times; after the sixth (the schedule paused meanwhile, so no run
 * straddles it) the link between them is slowed from 200 to 150 Mbit/s (tc's token bucket, changed in place): a fabric change that no parameter of the matrix says, so
 * the runs stay one fingerprint's series. Its bandwidth and message rate each get exactly one change point, between
 * the last run before the change and the first after, open in /api/changes and raised as an alert.
 */
class FabricChangeIntegrationTests extends ControllerIntegrationTest {

    private static final int OCCURRENCES = 12;
    private static final int BEFORE = 6;
    private static NetworkNamespaces net;
    private static final List<AgentProcess> agents = new ArrayList<>();

    @BeforeAll
    static void hosts() throws Exception {
        NetworkNamespaces.assumeAvailable("fabric change test");
        net = NetworkNamespaces.create(86, 2);
        net.shape(2, "200mbit");
    }

    @AfterAll
    static void down() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLinkSlowedAfterTheSixthOfTwelveNightsIsOneChangePointAtThatPlace() throws Exception {
        for (int i = 1; i <= 2; i++) {
            agents.add(AgentProcess.start(net.in(i, List.of()), "ws://" + net.hostAddress() + ":" + port + "/agent",
                    "f" + i, TOKEN));
        }
        awaitAgentsConnected(List.of("f1", "f2"), () -> logsOf(agents));

        Map<String, Object> made = http().post().uri("/api/schedules").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "nightly f1-f2", "cron", "*/3 * * * * *", "matrix", """
                        name: nightly f1-f2
                        hosts: {pairs: [[f1, f2]]}
                        base: {provider: tcp, threads: 1, qps_per_thread: 1, msg_size: 64K, duration_ms: 700}
                        """)).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long schedule = ((Number) made.get("id")).longValue();

        // the link changes between two nights: the schedule paused while it does (a night that fired in the poll's
        // window ends first, and counts as before), so no run straddles the change
        int slowedAfter = 0;
        java.sql.Timestamp slowedAt = null;
        List<Long> finished = List.of();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        try {
            while (finished.size() < OCCURRENCES && System.nanoTime() < deadline) {
                finished = jdbc.sql("""
                                SELECT e.id FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                                WHERE o.recurring_id = ? AND e.status = 'FINISHED' ORDER BY e.id""")
                        .param(schedule).query(Long.class).list();
                if (slowedAt == null && finished.size() >= BEFORE) {
                    http().post().uri("/api/schedules/{id}/disable", schedule).exchange().expectStatus().isOk();
                    while (jdbc.sql("""
                                    SELECT count(*) FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                                    WHERE o.recurring_id = ? AND e.status IN ('QUEUED', 'RUNNING')""")
                            .param(schedule).query(Long.class).single() > 0 && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                    net.reshape(2, "150mbit");
                    slowedAt = jdbc.sql("SELECT clock_timestamp()").query(java.sql.Timestamp.class).single();
                    slowedAfter = jdbc.sql("""
                                    SELECT count(*) FROM recurring_occurrence o JOIN experiment e ON e.id = o.experiment_id
                                    WHERE o.recurring_id = ? AND e.status = 'FINISHED'""")
                            .param(schedule).query(Long.class).single().intValue();
                    http().post().uri("/api/schedules/{id}/enable", schedule).exchange().expectStatus().isOk();
                }
                Thread.sleep(100);
            }
        } finally {
            http().post().uri("/api/schedules/{id}/disable", schedule).exchange().expectStatus().isOk();
        }
        assertThat(finished).as("%d nights finished within 3 min\n%s", OCCURRENCES, logsOf(agents))
                .hasSizeGreaterThanOrEqualTo(OCCURRENCES);
        assertThat(jdbc.sql("SELECT count(*) FROM experiment e JOIN recurring_occurrence o ON o.experiment_id = e.id "
                        + "WHERE o.recurring_id = ? AND e.status = 'FAILED'").param(schedule).query(Long.class).single())
                .as("no night failed").isZero();
        assertThat(slowedAfter).as("the link was slowed after the sixth night (a seventh already fired would count)")
                .isBetween(BEFORE, BEFORE + 1);

        List<Map<String, Object>> runs = jdbc.sql("""
                        SELECT r.id, r.experiment_id, r.fingerprint, s.bw_avg_bps, r.started_at, r.finished_at
                        FROM run r JOIN run_summary s ON s.run_id = r.id
                        WHERE r.experiment_id = ANY(?) ORDER BY r.finished_at, r.id""")
                .param(finished.subList(0, OCCURRENCES).toArray(Long[]::new)).query().listOfRows();
        assertThat(runs).hasSize(OCCURRENCES);
        assertThat(runs.stream().map(r -> r.get("fingerprint")).distinct()).as("one configuration: one series").hasSize(1);
        String fingerprint = (String) runs.get(0).get("fingerprint");
        long lastBefore = (Long) runs.get(slowedAfter - 1).get("id");
        long firstAfter = (Long) runs.get(slowedAfter).get("id");
        assertThat((java.sql.Timestamp) runs.get(slowedAfter - 1).get("finished_at"))
                .as("the last night before ended before the link was slowed").isBefore(slowedAt);
        assertThat((java.sql.Timestamp) runs.get(slowedAfter).get("started_at"))
                .as("the first night after began after it").isAfter(slowedAt);
        double before = runs.subList(0, slowedAfter).stream().mapToDouble(r -> (Double) r.get("bw_avg_bps")).average().orElseThrow();
        double after = runs.subList(slowedAfter, OCCURRENCES).stream().mapToDouble(r -> (Double) r.get("bw_avg_bps")).average()
                .orElseThrow();
        assertThat(after / before - 1).as("the link's rate fell by a quarter: so did the runs' bandwidth (%s)", runs)
                .isCloseTo(-0.25, within(0.06));

        System.out.printf("fabric-change: series Mbit/s %s; change %s%n", runs.stream()
                .map(r -> String.format(java.util.Locale.ROOT, "%.1f", (Double) r.get("bw_avg_bps") * 8 / 1e6)).toList(),
                get("/api/fingerprints/" + fingerprint + "/history").get("changes"));
        Map<String, Object> history = get("/api/fingerprints/" + fingerprint + "/history");
        List<Map<String, Object>> changes = (List<Map<String, Object>>) history.get("changes");
        assertThat(changes).as("exactly one change in the bandwidth series (%s)", runs).hasSize(1);
        assertThat(changes.get(0)).containsEntry("index", slowedAfter).containsEntry("runBefore", (int) lastBefore)
                .containsEntry("runAfter", (int) firstAfter);
        assertThat(((Number) changes.get(0).get("changePercent")).doubleValue()).isCloseTo(-25, within(6.0));

        List<Map<String, Object>> open = http().get().uri("/api/changes").exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody().stream()
                .filter(c -> fingerprint.equals(c.get("fingerprint"))).toList();
        assertThat(open).as("one open change per watched series of the runs: bandwidth and message rate")
                .extracting(c -> c.get("metric") + " " + ((Number) c.get("runAfter")).longValue())
                .containsExactlyInAnyOrder("bw_avg_bps " + firstAfter, "msg_rate " + firstAfter);
        List<Map<String, Object>> alerts = (List<Map<String, Object>>) get("/api/alerts").get("alerts");
        assertThat(alerts).as("each change is an alert").extracting(a -> a.get("key"))
                .contains(open.stream().map(c -> "change:" + ((Number) c.get("id")).longValue()).toArray());
    }

    private Map<String, Object> get(String uri) {
        return http().get().uri(uri).exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }
}
