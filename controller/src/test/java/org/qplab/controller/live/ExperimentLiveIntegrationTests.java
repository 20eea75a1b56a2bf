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
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** GET /api/experiments/{id}/live: the experiment on every change of its state, then its end, as the API reads it. */
class ExperimentLiveIntegrationTests extends ControllerIntegrationTest {

    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() { };

    @Test
    void aWatcherSeesTheExperimentStartEachRunEndAndTheEndAsTheApiAnswersIt() throws Exception {
        // no agent is connected yet: the experiment waits in the queue while the watcher subscribes
        long experiment = submit("{\"name\":\"live-experiment\",\"base\":{\"msg_size\":1024,\"duration_ms\":500},"
                + "\"dimensions\":{\"threads\":[1,2]}}");
        CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> watching = events(experiment).collectList()
                .toFuture();
        Thread.sleep(300);

        try (AgentProcess agent = AgentProcess.start(port, "live-experiment-agent", TOKEN)) {
            List<ServerSentEvent<Map<String, Object>>> events = watching.get(60, TimeUnit.SECONDS);

            assertThat(events.get(0).event()).as("the watch begins with the experiment as it is").isEqualTo("experiment");
            assertThat(events.get(0).data()).containsEntry("id", (int) experiment).containsEntry("status", "QUEUED")
                    .containsEntry("runsTotal", 2).containsEntry("runsDone", 0);
            assertThat(events).as("one event per change (agent log: %s)", agent.log()).extracting(e -> e.data().get("status"))
                    .contains("RUNNING");
            assertThat(events.stream().map(e -> ((Number) e.data().get("runsDone")).intValue()).toList())
                    .as("each run's end is seen, in order").isSorted().contains(0, 1, 2);
            ServerSentEvent<Map<String, Object>> last = events.get(events.size() - 1);
            assertThat(last.event()).isEqualTo("end");
            assertThat(last.data()).containsEntry("status", "FINISHED").containsEntry("runsDone", 2)
                    .containsEntry("runsRunning", 0);
            assertThat(events.stream().filter(e -> "end".equals(e.event()))).as("one end, the last event").hasSize(1);
            Map<String, Object> read = http().get().uri("/api/experiments/{id}", experiment).exchange().expectBody(JSON_OBJECT)
                    .returnResult().getResponseBody();
            assertThat(last.data()).as("the end is the experiment as GET answers it")
                    .containsAllEntriesOf(Map.of("status", read.get("status"), "finishedAt", read.get("finishedAt"),
                            "runsTotal", read.get("runsTotal"), "agents", read.get("agents")));

            assertThat(events(experiment).collectList().block(Duration.ofSeconds(10))).as("an ended experiment answers "
                    + "with its end at once").singleElement().satisfies(e -> assertThat(e.event()).isEqualTo("end"));
        }
    }

    @Test
    void aCancelIsSeenWithinASecondAndEndsTheStream() throws Exception {
        long experiment = submit("{\"name\":\"live-cancelled\",\"base\":{\"msg_size\":2048,\"duration_ms\":500},"
                + "\"dimensions\":{\"threads\":[3]},\"hosts\":{\"loopback\":[\"live-nobody-connects\"]}}");
        CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> watching = events(experiment).collectList()
                .toFuture();
        Thread.sleep(300);
        long cancelled = System.nanoTime();
        http().post().uri("/api/experiments/{id}/cancel", experiment).exchange().expectStatus().isOk();

        List<ServerSentEvent<Map<String, Object>>> events = watching.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - cancelled)).as("seen within the stream's 1 s check")
                .isLessThan(Duration.ofSeconds(2));
        assertThat(events).extracting(ServerSentEvent::event).containsExactly("experiment", "end");
        assertThat(events.get(1).data()).containsEntry("status", "CANCELLED").containsEntry("runsRunning", 0);
    }

    @Test
    void anUnknownExperimentIsA404() {
        assertThat(WebClient.create("http://127.0.0.1:" + port).get().uri("/api/experiments/{id}/live", 987654321)
                .header("Authorization", "Bearer " + adminToken()).accept(MediaType.TEXT_EVENT_STREAM).retrieve()
                .bodyToFlux(EVENT).collectList().onErrorResume(WebClientResponseException.NotFound.class,
                        e -> Mono.just(List.of(ServerSentEvent.<Map<String, Object>>builder()
                                .event("404").data(Map.of("body", e.getResponseBodyAsString())).build())))
                .block(Duration.ofSeconds(10))).singleElement().satisfies(e -> {
                    assertThat(e.event()).isEqualTo("404");
                    assertThat(String.valueOf(e.data().get("body"))).contains("no experiment 987654321");
                });
    }

    private long submit(String body) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private Flux<ServerSentEvent<Map<String, Object>>> events(long experiment) {
        return WebClient.create("http://127.0.0.1:" + port).get().uri("/api/experiments/{id}/live", experiment)
                .header("Authorization", "Bearer " + adminToken())
                .accept(MediaType.TEXT_EVENT_STREAM).retrieve().bodyToFlux(EVENT)
                .filter(e -> e.event() != null);
    }
}
