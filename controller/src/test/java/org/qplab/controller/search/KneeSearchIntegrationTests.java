package org.qplab.controller.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * search: knee on real runs (a real agent, tcp on loopback, this machine's own thread curve): the search plans each
 * next point from the runs so far, ends with the knee bracketed (or says why not) in far fewer points than a grid of
 * the same resolution, refuses what it cannot search, and, cancelled midway, keeps its points and says where it
 * stopped. What the knee of this machine is, the test does not assume: KneeSearchTests checks the bracket against
 * known knees.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("unchecked")
class KneeSearchIntegrationTests extends ControllerIntegrationTest {

    private AgentProcess agent;

    @BeforeAll
    void startTheAgent() throws Exception {
        agent = AgentProcess.start(port, "knee-agent", TOKEN);
    }

    @AfterAll
    void stopTheAgent() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    private long submit(String matrix) {
        Map<String, Object> created = http().post().uri("/api/experiments")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue(matrix).exchange()
                .expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private Map<String, Object> search(long id) {
        return http().get().uri("/api/experiments/" + id + "/search").exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    @Test
    void aSearchOverThreadsPlansFromItsResultsAndBracketsTheKneeInFewerPointsThanAGrid() throws Exception {
        long id = submit("""
                name: thread knee
                base: {provider: tcp, msg_size: 64K, duration_ms: 300}
                search: {knee: threads, low: 1, high: 16, max_runs: 24}
                repeats: 2
                """);
        Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(3), agent::log);
        assertThat(ended.get("status")).as(agent.log()).isEqualTo("FINISHED");

        Map<String, Object> search = search(id);
        assertThat(search).containsEntry("dimension", "threads").containsEntry("metric", "bw_avg_bps")
                .containsEntry("state", "done").containsEntry("repeats", 2);
        List<Map<String, Object>> points = (List<Map<String, Object>>) search.get("points");
        List<Long> xs = points.stream().map(p -> ((Number) p.get("x")).longValue()).toList();
        assertThat(xs).as("measured in ascending order, the ends included").isSorted().contains(1L, 16L)
                .doesNotHaveDuplicates().allMatch(x -> x >= 1 && x <= 16);
        assertThat(points).allSatisfy(p -> assertThat(p.get("n")).as("every repeat of %s", p).isEqualTo(2));
        int runs = ((Number) search.get("runs")).intValue();
        assertThat(runs).isEqualTo(2 * xs.size()).isLessThanOrEqualTo(24);
        // a grid at 10 % from 1 to 16 over integers is every integer (KneeCounts.gridPoints): 16 points; the search's
        // saving shows over wider ranges (bench/search/tcp-threads.md: 1 to 64 threads)
        assertThat(xs.size()).as("points measured: %s", xs).isLessThan((int) KneeCounts.gridPoints(1, 16, 0.1));

        Map<String, Object> result = (Map<String, Object>) search.get("result");
        assertThat(result.get("kind")).as("%s", result).isIn("knee", "cliff", "none");
        assertThat((String) result.get("why")).isNotBlank();
        if (!result.get("kind").equals("none")) {
            long low = ((Number) result.get("bracketLow")).longValue();
            long high = ((Number) result.get("bracketHigh")).longValue();
            assertThat(xs).as("the bracket's ends were measured").contains(low, high);
            assertThat(((Number) result.get("value")).longValue()).isBetween(low, high);
            if (Boolean.TRUE.equals(result.get("bracketed"))) {
                assertThat(high - low <= 1 || high <= low * 1.1).as("bracket %d..%d within 10 %%", low, high).isTrue();
            }
        }
        List<String> others = jdbc.sql("SELECT DISTINCT (params - 'threads')::text FROM run WHERE experiment_id = ?")
                .param(id).query(String.class).list();
        assertThat(others).as("every point planned with the matrix's other parameters").singleElement().asString()
                .contains("\"msg_size\": 65536", "\"duration_ms\": 300", "\"provider\": \"tcp\"");
    }

    @Test
    void whatCannotBeSearchedIsRefusedNamingTheField() {
        String body = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue("""
                        base: {provider: tcp, msg_size: 64K, threads: 2}
                        dimensions: {tx_depth: [1, 2]}
                        search: {knee: op, low: 1, high: 0, max_runs: 100000000}
                        """).exchange().expectStatus().isBadRequest().expectBody(String.class).returnResult()
                .getResponseBody();
        assertThat(body).contains("search.knee", "op cannot be searched for a knee: the dimension must be numeric")
                .contains("search.high", "search.max_runs", "(qplab.experiments.max-runs)")
                .contains("\"dimensions\"", "alone, the others fixed");
        http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue("base: {provider: tcp, msg_size: 64K, threads: 2}\nsearch: {knee: threads, low: 1, high: 8}\n")
                .exchange().expectStatus().isBadRequest().expectBody(String.class)
                .value(b -> assertThat(b).contains("base.threads", "is set by the search"));
    }

    @Test
    void aCancelledSearchKeepsItsPointsAndSaysWhereItStopped() throws Exception {
        long id = submit("""
                name: cancelled knee
                base: {provider: tcp, msg_size: 64K, duration_ms: 1500}
                search: {knee: threads, low: 1, high: 64}
                """);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (((List<?>) search(id).get("points")).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        http().post().uri("/api/experiments/" + id + "/cancel").exchange().expectStatus().is2xxSuccessful();
        Map<String, Object> search = search(id);
        while (!search.get("state").equals("stopped") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            search = search(id);
        }
        assertThat(search.get("state")).isEqualTo("stopped");
        assertThat((List<?>) search.get("points")).isNotEmpty();
        assertThat(search.get("result")).isNull();
        assertThat((String) search.get("stopped")).startsWith("the experiment was cancelled after ")
                .contains("measured value").contains("of threads");
    }
}
