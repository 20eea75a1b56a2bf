package org.qplab.controller.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

class LiveRunIntegrationTests extends ControllerIntegrationTest {

    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() { };

    @Test
    void aWatcherSeesEveryIntervalOfEveryThreadArriveWithItsPercentilesThenTheEnd() throws Exception {
        // no agent is connected yet: the run waits in the queue while the watcher subscribes
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"live\",\"base\":{\"msg_size\":4096,\"duration_ms\":2000,\"threads\":2}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(((Number) created.get("id")).longValue())
                .query(Long.class).single();
        CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> watching = events(runId).toFuture();
        Thread.sleep(300);
        assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).single()).isEqualTo("QUEUED");

        try (AgentProcess agent = AgentProcess.start(port, "live-agent", TOKEN)) {
            List<ServerSentEvent<Map<String, Object>>> events = watching.get(60, TimeUnit.SECONDS);

            List<ServerSentEvent<Map<String, Object>>> progress = events.stream().filter(e -> "progress".equals(e.event())).toList();
            assertThat(progress).as("progress events of a 2 s run (agent log: %s)", agent.log()).hasSizeGreaterThanOrEqualTo(5);
            List<Long> totals = progress.stream().map(e -> ((Number) e.data().get("totalCycles")).longValue()).toList();
            assertThat(totals).isSorted();
            long stored = jdbc.sql("SELECT sum(cycles) FROM run_interval WHERE run_id = ?").param(runId).query(Long.class).single();
            long summarized = jdbc.sql("SELECT cycles FROM run_summary WHERE run_id = ?").param(runId).query(Long.class).single();
            assertThat(totals.get(totals.size() - 1)).as("every cycle was announced").isEqualTo(stored).isEqualTo(summarized);
            List<Map<?, ?>> intervals = progress.stream().flatMap(e -> ((List<?>) e.data().get("threads")).stream())
                    .<Map<?, ?>>map(t -> (Map<?, ?>) t).toList();
            assertThat(intervals.stream().mapToLong(t -> ((Number) t.get("cycles")).longValue()).sum())
                    .as("the announced intervals add up").isEqualTo(stored);
            assertThat(intervals.stream().map(t -> t.get("thread") + "/" + t.get("interval")).distinct())
                    .as("each thread's interval once, about 20 of each thread in 2 s at 100 ms")
                    .hasSize(intervals.size()).hasSizeBetween(2 * 15, 2 * 25);
            Map<?, ?> thread = intervals.get(intervals.size() / 2);
            assertThat(((Number) thread.get("lastEndNs")).longValue()).isGreaterThan(((Number) thread.get("firstStartNs")).longValue());
            assertThat(((Number) thread.get("bytes")).longValue()).isEqualTo(4096 * ((Number) thread.get("cycles")).longValue());
            assertThat(((Number) thread.get("medianCycleNs")).longValue()).isPositive()
                    .isLessThanOrEqualTo(((Number) thread.get("p99CycleNs")).longValue());
            assertThat(((Number) thread.get("p99CycleNs")).longValue())
                    .isLessThanOrEqualTo(((Number) thread.get("p999CycleNs")).longValue());

            assertThat(events.get(0).event()).as("the watch begins with the run's status").isEqualTo("status");
            assertThat(events.get(0).data()).containsEntry("status", "QUEUED");
            ServerSentEvent<Map<String, Object>> last = events.get(events.size() - 1);
            assertThat(last.event()).isEqualTo("end");
            assertThat(last.data()).containsEntry("status", "FINISHED");

            assertThat(watch(runId)).as("an ended run answers with its end at once").singleElement()
                    .satisfies(e -> assertThat(e.data()).containsEntry("status", "FINISHED"));
        }
    }

    private List<ServerSentEvent<Map<String, Object>>> watch(long runId) {
        return events(runId).block(Duration.ofSeconds(60));
    }

    private Mono<List<ServerSentEvent<Map<String, Object>>>> events(long runId) {
        return WebClient.create("http://127.0.0.1:" + port).get().uri("/api/runs/{id}/live", runId)
                .header("Authorization", "Bearer " + adminToken())
                .accept(MediaType.TEXT_EVENT_STREAM).retrieve().bodyToFlux(EVENT)
                .filter(e -> e.event() != null)
                .collectList();
    }
}
