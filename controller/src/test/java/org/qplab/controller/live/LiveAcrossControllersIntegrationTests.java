package org.qplab.controller.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.database.EmbeddedPostgres;
import org.qplab.controller.database.TestDatabase;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.ControllerProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * Two controllers on one PostgreSQL (issue 38): this test's controller A, whose agent stores the run's frames, and a
 * controller B as its own process on A's database, with no agent of its own. A browser on B follows the run and its
 * experiment as one on A does. Its own context, and so its own database: B's start marks every agent disconnected,
 * which must not reach another test's agents.
 */
@TestPropertySource(properties = "spring.application.name=controller-a")
class LiveAcrossControllersIntegrationTests extends ControllerIntegrationTest {

    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() { };

    @Autowired
    private EmbeddedPostgres database;

    @Test
    void aWatcherOnAnotherControllerSeesEveryFrameOnceWithItsIntervalsAndTheEndAnotherControllerSet() throws Exception {
        Path unused = TestDatabase.freshDataDir(); // B starts no embedded server: spring.datasource.url is set
        try (ControllerProcess b = startProcess("live-b", ControllerProcess.freePort(), unused, 0, List.of(
                "spring.datasource.url=" + database.jdbcUrl(database.database()),
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password(),
                "qplab.agents.token=" + TOKEN))) {
            // no agent is connected yet: the run waits in the queue while both watchers subscribe
            Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"name\":\"live across\",\"base\":{\"provider\":\"tcp\",\"msg_size\":4096,"
                            + "\"duration_ms\":3000,\"threads\":2}}")
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            long experimentId = ((Number) created.get("id")).longValue();
            long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experimentId).query(Long.class).single();
            CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> onB =
                    events(b.url(), b.token(), "/api/runs/{id}/live", runId).toFuture();
            CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> experimentOnB =
                    events(b.url(), b.token(), "/api/experiments/{id}/live", experimentId).toFuture();
            CompletableFuture<List<ServerSentEvent<Map<String, Object>>>> onA =
                    events("http://127.0.0.1:" + port, adminToken(), "/api/runs/{id}/live", runId).toFuture();
            Thread.sleep(500);

            try (AgentProcess agent = AgentProcess.start(port, "live-across-a", TOKEN)) {
                List<ServerSentEvent<Map<String, Object>>> events = onB.get(90, TimeUnit.SECONDS);
                String diagnostics = "events on B: " + events + "\nagent log: " + agent.log();
                assertThat(jdbc.sql("SELECT agent_id FROM run WHERE id = ?").param(runId).query(String.class).single())
                        .as("A's agent ran it").isEqualTo("live-across-a");

                assertThat(events.get(0).event()).as(diagnostics).isEqualTo("status");
                assertThat(events.get(0).data()).containsEntry("status", "QUEUED");
                assertThat(events).as("the start A set, seen on B: " + diagnostics)
                        .anySatisfy(e -> {
                            assertThat(e.event()).isEqualTo("status");
                            assertThat(e.data()).containsEntry("status", "RUNNING");
                        });
                ServerSentEvent<Map<String, Object>> last = events.get(events.size() - 1);
                assertThat(last.event()).as("the end A set, seen on B: " + diagnostics).isEqualTo("end");
                assertThat(last.data()).containsEntry("status", "FINISHED");

                List<Map<String, Object>> progress = events.stream().filter(e -> "progress".equals(e.event()))
                        .map(ServerSentEvent::data).toList();
                long frames = jdbc.sql("SELECT count(*) FROM run_frame WHERE run_id = ?").param(runId)
                        .query(Long.class).single();
                assertThat(progress.stream().map(p -> ((Number) p.get("seq")).longValue()).sorted().toList())
                        .as("every frame A stored, once each (%s)", diagnostics).hasSizeGreaterThanOrEqualTo(2)
                        .isEqualTo(LongStream.range(0, frames).boxed().toList());
                List<Long> totals = progress.stream().map(p -> ((Number) p.get("totalCycles")).longValue()).toList();
                assertThat(totals).as("the run's cycles so far grow with each frame")
                        .doesNotHaveDuplicates().isSorted();
                long stored = jdbc.sql("SELECT sum(cycles) FROM run_interval WHERE run_id = ?").param(runId)
                        .query(Long.class).single();
                long summarized = jdbc.sql("SELECT cycles FROM run_summary WHERE run_id = ?").param(runId)
                        .query(Long.class).single();
                assertThat(totals.get(totals.size() - 1)).as("every cycle was announced").isEqualTo(stored)
                        .isEqualTo(summarized);
                List<Map<?, ?>> intervals = progress.stream().flatMap(p -> ((List<?>) p.get("threads")).stream())
                        .<Map<?, ?>>map(t -> (Map<?, ?>) t).toList();
                assertThat(intervals.stream().map(t -> t.get("thread") + "/" + t.get("interval")).distinct())
                        .as("each stored interval of each thread once")
                        .hasSize(intervals.size())
                        .hasSize(jdbc.sql("SELECT count(*) FROM run_interval WHERE run_id = ?").param(runId)
                                .query(Integer.class).single());
                Map<?, ?> middle = intervals.get(intervals.size() / 2);
                assertThat(((Number) middle.get("bytes")).longValue())
                        .isEqualTo(4096 * ((Number) middle.get("cycles")).longValue());
                assertThat(((Number) middle.get("medianCycleNs")).longValue()).isPositive()
                        .isLessThanOrEqualTo(((Number) middle.get("p99CycleNs")).longValue());

                // frames stored at once by A's writers may show in either order, and totals add up in that order
                Map<Object, Object> framesOnA = onA.get(30, TimeUnit.SECONDS).stream()
                        .filter(e -> "progress".equals(e.event()))
                        .collect(Collectors.toMap(e -> e.data().get("seq"), e -> e.data().get("threads")));
                assertThat(progress.stream().collect(Collectors.toMap(p -> p.get("seq"), p -> p.get("threads"))))
                        .as("B, from the database, shows each frame's intervals as A, which stored them, does")
                        .isEqualTo(framesOnA);

                List<ServerSentEvent<Map<String, Object>>> experiment = experimentOnB.get(30, TimeUnit.SECONDS);
                assertThat(experiment).as("the experiment on B while its run ran on A: %s", experiment)
                        .anySatisfy(e -> {
                            assertThat(e.event()).isEqualTo("experiment");
                            assertThat(e.data()).containsEntry("runsRunning", 1);
                        });
                assertThat(experiment.get(experiment.size() - 1).event()).isEqualTo("end");
                assertThat(experiment.get(experiment.size() - 1).data())
                        .containsEntry("status", "FINISHED").containsEntry("runsDone", 1);
            }
        }
    }

    private static Mono<List<ServerSentEvent<Map<String, Object>>>> events(String url, String token, String path, long id) {
        return WebClient.create(url).get().uri(path, id)
                .header("Authorization", "Bearer " + token)
                .accept(MediaType.TEXT_EVENT_STREAM).retrieve().bodyToFlux(EVENT)
                .filter(e -> e.event() != null)
                .collectList();
    }
}
