package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

class ExperimentApiIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    @Test
    void storesASubmittedYamlMatrixAsOneQueuedRunPerPoint() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(YAML)
                .bodyValue("""
                        name: api-yaml
                        base: {iterations: 5, qps_per_thread: 1}
                        dimensions: {msg_size: [64, 128], threads: [1, 2]}
                        """)
                .exchange().expectStatus().isCreated()
                .expectHeader().value("Location", l -> assertThat(l).startsWith("/api/experiments/"))
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();

        assertThat(created).containsEntry("name", "api-yaml").containsEntry("runsTotal", 4);
        long id = ((Number) created.get("id")).longValue();
        List<Map<String, Object>> runs = http().get().uri("/api/experiments/{id}/runs", id).exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(runs).hasSize(4).extracting(r -> (Object) ((Map<?, ?>) r.get("params")).get("msg_size"))
                .containsExactlyInAnyOrder(64, 64, 128, 128);
        assertThat(jdbc.sql("SELECT count(*) FROM run WHERE experiment_id = ?").param(id).query(Long.class).single())
                .isEqualTo(4);
    }

    @Test
    void acceptsTheSameMatrixAsJson() {
        http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"api-json\",\"base\":{\"msg_size\":\"4K\",\"iterations\":5}}")
                .exchange().expectStatus().isCreated()
                .expectBody().jsonPath("$.runsTotal").isEqualTo(1).jsonPath("$.status").isEqualTo("QUEUED");
    }

    @Test
    void rejectsEveryProblemOfAMatrixInOneResponseAndStoresNothing() {
        assertRejected(YAML, """
                        name: everything-wrong
                        base: {thread: 4}
                        dimensions:
                          msg_size: [0, -64, 1024]
                          qps_per_thread: []
                        """,
                "base.thread", "dimensions.msg_size[0]", "dimensions.msg_size[1]", "dimensions.qps_per_thread");
    }

    @Test
    void rejectsUnknownParameter() {
        assertRejected(YAML, "base: {msg_size: 64, queue_pairs: 8}", "base.queue_pairs");
    }

    @Test
    void rejectsZeroAndNegativeSizes() {
        assertRejected(YAML, "dimensions: {msg_size: [0, -1]}", "dimensions.msg_size[0]", "dimensions.msg_size[1]");
    }

    @Test
    void rejectsEmptyDimension() {
        assertRejected(YAML, "base: {msg_size: 64}\ndimensions: {threads: []}", "dimensions.threads");
    }

    @Test
    void rejectsTenMillionPoints() {
        String ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
        Map<String, Object> body = assertRejected(YAML, "dimensions: {msg_size: %1$s, threads: %1$s, qps_per_thread: %1$s, tx_depth: %1$s, iterations: %1$s, warmup_cycles: %1$s, duration_ms: %1$s}"
                .formatted(ten), "dimensions");
        assertThat(body.toString()).contains("10,000,000 runs");
    }

    /** What the engine refuses and the controller once queued (201, then every run failed on its agent). */
    @Test
    void refusesWhatTheEngineWouldRefuseNamingTheFieldInTheEnginesWords() {
        Map<String, Object> body = assertRejected(YAML,
                "base: {provider: verbs, msg_size: 4K, tx_depth: 16, post_list: 32}", "base.post_list");
        assertThat(body.toString()).contains("post_list 32 > tx_depth 16 (one post would not fit in the send queue)");

        body = assertRejected(YAML, "base: {provider: verbs, msg_size: 4K, srq: per_thread}\n"
                + "dimensions: {op: [send, write]}", "base.srq");
        assertThat(body.toString()).contains("srq per_thread: only op send consumes receive requests (got op write)");

        body = assertRejected(YAML, "base: {provider: verbs, msg_size: 64, op: write, qp_sharing: shared}\n"
                + "dimensions: {transport: [rc, xrc]}", "base.qp_sharing");
        assertThat(body.toString()).contains("qp_sharing shared: transport xrc (rc or uc only)");

        body = assertRejected(YAML, "base: {provider: verbs, msg_size: 64, op: read, qp_sharing: shared}\n"
                + "dimensions: {polling: [busy, event]}", "base.qp_sharing");
        assertThat(body.toString()).contains("qp_sharing shared: polling event is not supported (use busy)");
    }

    @Test
    void rejectsMalformedYaml() {
        Map<String, Object> body = assertRejected(YAML, "dimensions: {msg_size: [64, 128\n", "");
        assertThat(body.toString()).contains("malformed YAML at line");
    }

    @Test
    void rejectsMalformedJson() {
        Map<String, Object> body = assertRejected(MediaType.APPLICATION_JSON, "{\"base\": {\"msg_size\": 64,,}}", "");
        assertThat(body.toString()).contains("malformed JSON at line 1");
    }

    @Test
    void rejectsWrongContentType() {
        Map<String, Object> body = assertRejected(MediaType.TEXT_PLAIN, "base: {msg_size: 64}", "Content-Type");
        assertThat(body.toString()).contains("must be application/json or application/yaml, got text/plain");
    }

    @Test
    void validatesAMatrixWithoutStoringIt() {
        long experiments = count("experiment");
        http().post().uri("/api/experiments/validate").contentType(YAML)
                .bodyValue("name: dry\nbase: {iterations: 5}\ndimensions: {msg_size: [64, 128, 4K], threads: [1, 2]}\nrepeats: 3\n")
                .exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.name").isEqualTo("dry").jsonPath("$.runs").isEqualTo(18)
                .jsonPath("$.points").isEqualTo(6);
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    @Test
    void answersNotFoundForAnUnknownExperiment() {
        http().get().uri("/api/experiments/999999").exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("no experiment 999999");
    }

    private Map<String, Object> assertRejected(MediaType type, String body, String... fields) {
        long experiments = count("experiment");
        long runs = count("run");
        WebTestClient.ResponseSpec response = http().post().uri("/api/experiments").contentType(type)
                .bodyValue(body).exchange();
        Map<String, Object> error = response.expectStatus().isEqualTo(HttpStatus.BAD_REQUEST)
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();

        assertThat(error).containsEntry("error", "invalid matrix");
        assertThat((List<?>) error.get("violations")).extracting(v -> (Object) ((Map<?, ?>) v).get("field"))
                .containsExactlyInAnyOrder((Object[]) fields);
        assertThat(count("experiment")).as("experiments stored").isEqualTo(experiments);
        assertThat(count("run")).as("runs stored").isEqualTo(runs);
        Map<String, Object> validated = http().post().uri("/api/experiments/validate").contentType(type).bodyValue(body)
                .exchange().expectStatus().isEqualTo(HttpStatus.BAD_REQUEST).expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
        assertThat(validated).as("validate answers as a submit would").isEqualTo(error);
        return error;
    }
}
