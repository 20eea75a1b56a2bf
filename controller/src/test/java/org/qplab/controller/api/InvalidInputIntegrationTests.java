package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Text PostgreSQL cannot store (a NUL, other control characters, half a surrogate pair) and values of the wrong
 * type are refused with 400 naming the field, wherever they come in, and nothing is stored; a body over the codec
 * limit with 413.
 */
class InvalidInputIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    @Test
    void aNulInASubmittedNameIsRefusedNamingTheFieldAndStoresNothing() {
        long before = count("experiment");
        long runsBefore = count("run");
        Map<String, Object> body = expect400(http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"bad\\u0000name\",\"base\":{\"msg_size\":64}}").exchange());
        assertThat(body).containsEntry("error", "invalid matrix");
        assertThat(violations(body)).containsExactly(Map.of("field", "name", "message",
                "contains a NUL character (U+0000) at character 4; text must not contain control characters other"
                        + " than tab, CR and LF"));
        assertThat(count("experiment")).as("experiments stored").isEqualTo(before);
        assertThat(count("run")).as("runs stored").isEqualTo(runsBefore);
    }

    @Test
    void invalidTextAnywhereInAYamlOrJsonMatrixIsNamedByItsPath() {
        long before = count("experiment");
        Map<String, Object> yaml = expect400(http().post().uri("/api/experiments").contentType(YAML)
                .bodyValue("name: ok\ndescription: \"bell \\a\"\nbase: {msg_size: 64}\n").exchange());
        assertThat(violations(yaml)).extracting(v -> v.get("field")).containsExactly("description");
        assertThat((String) violations(yaml).get(0).get("message")).startsWith("contains the control character U+0007");

        Map<String, Object> json = expect400(http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"ok\",\"base\":{\"msg_size\":64},\"dimensions\":{\"provider\":[\"tcp\",\"\\ud800\"]}}")
                .exchange());
        assertThat(violations(json)).extracting(v -> v.get("field")).containsExactly("dimensions.provider[1]");
        assertThat((String) violations(json).get(0).get("message")).startsWith("contains an unpaired surrogate U+D800");

        expect400(http().post().uri("/api/experiments/validate").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"ok\",\"base\":{\"msg_size\":64,\"x\\u0000\":1}}").exchange());
        assertThat(count("experiment")).as("experiments stored").isEqualTo(before);
    }

    @Test
    void aNulInAQueryParameterOrPathVariableIsRefusedNamingIt() {
        Map<String, Object> list = expect400(http().get().uri("/api/experiments?name={name}", "a\u0000").exchange());
        assertThat(list).containsEntry("error", "invalid text");
        assertThat(violations(list)).extracting(v -> v.get("field")).containsExactly("name");

        Map<String, Object> status = expect400(http().get().uri("/api/experiments?status=QUEUED&status={s}", "DONE\u0001")
                .exchange());
        assertThat(violations(status)).extracting(v -> v.get("field")).containsExactly("status");

        Map<String, Object> host = expect400(http().get().uri("/api/hosts/{name}", "lab\u0000host").exchange());
        assertThat(violations(host)).extracting(v -> v.get("field")).containsExactly("name");
        assertThat((String) violations(host).get(0).get("message")).contains("NUL");
    }

    @Test
    void aNulInAnImportsNameOrBodyIsRefusedAndStoresNothing() throws Exception {
        String perftest = fixture("ib_write_bw.txt");
        long before = count("experiment");
        Map<String, Object> name = expect400(http().post().uri("/api/import/perftest?name={name}&file=ok.txt", "x\u0000")
                .contentType(MediaType.TEXT_PLAIN).bodyValue(perftest).exchange());
        assertThat(violations(name)).extracting(v -> v.get("field")).containsExactly("name");

        Map<String, Object> file = expect400(http().post().uri("/api/import/perftest?file={file}", "a\u0000.txt")
                .contentType(MediaType.TEXT_PLAIN).bodyValue(perftest).exchange());
        assertThat(violations(file)).extracting(v -> v.get("field")).containsExactly("file");

        Map<String, Object> body = expect400(http().post().uri("/api/import/perftest")
                .contentType(MediaType.TEXT_PLAIN).bodyValue(perftest.replace("rxe0", "rxe\u00000")).exchange());
        assertThat(body).containsEntry("error", "invalid perftest output");
        assertThat(violations(body)).extracting(v -> v.get("field")).containsExactly("line 3");

        Map<String, Object> binary = expect400(http().post().uri("/api/import/perftest")
                .contentType(MediaType.TEXT_PLAIN).bodyValue("\u0000\u0001\n".repeat(1000)).exchange());
        assertThat(violations(binary)).as("the first ten lines say enough").hasSize(10)
                .extracting(v -> v.get("field")).startsWith("line 1", "line 2").endsWith("line 10");

        Map<String, Object> json = expect400(http().post().uri("/api/import/perftest")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(fixture("ib_write_bw.json").replace("\"rxe0\"", "\"rxe\\u0000\"")).exchange());
        assertThat(violations(json)).extracting(v -> v.get("field")).containsExactly("Device");
        assertThat(count("experiment")).as("experiments stored").isEqualTo(before);
    }

    @Test
    void aHostWithInvalidTextIsRefusedNamingTheField() {
        Map<String, Object> body = expect400(http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"text-host\",\"address\":\"127.0.0.1\",\"remoteDir\":\"qp\\u0000lab\"}").exchange());
        assertThat(violations(body)).extracting(v -> v.get("field")).containsExactly("remoteDir");
        http().get().uri("/api/hosts/text-host").exchange().expectStatus().isNotFound();
    }

    @Test
    void aValueOfTheWrongTypeNamesTheParameterAndTheTypeItMustHave() {
        Map<String, Object> experiment = expect400(http().get().uri("/api/experiments/abc").exchange());
        assertThat(violations(experiment)).containsExactly(Map.of("field", "id",
                "message", "must be an integer (an experiment id), got 'abc'"));

        Map<String, Object> run = expect400(http().get().uri("/api/runs/1x/summary").exchange());
        assertThat(violations(run)).containsExactly(Map.of("field", "id", "message", "must be an integer (a run id), got '1x'"));

        Map<String, Object> compare = expect400(http().get().uri("/api/compare?baseline=1&candidate=2&alpha=low").exchange());
        assertThat(violations(compare)).containsExactly(Map.of("field", "alpha", "message", "must be a number, got 'low'"));

        Map<String, Object> missing = expect400(http().get().uri("/api/compare?candidate=2").exchange());
        assertThat(violations(missing)).containsExactly(Map.of("field", "baseline",
                "message", "is required: an integer, as a query parameter"));
    }

    @Test
    void aBodyOverTheCodecLimitIsRefusedWith413SayingTheLimit() {
        String large = "{\"name\":\"" + "x".repeat(4 * 1024 * 1024) + "\"}";
        for (String uri : List.of("/api/experiments/validate", "/api/tokens")) {
            Map<String, Object> body = http().post().uri(uri).contentType(MediaType.APPLICATION_JSON).bodyValue(large)
                    .exchange().expectStatus().isEqualTo(413).expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(body).as(uri).containsOnlyKeys("error").containsEntry("error", "the request body is larger than "
                    + "4194304 bytes, the most this controller reads (spring.codec.max-in-memory-size)");
        }
    }

    private static Map<String, Object> expect400(WebTestClient.ResponseSpec response) {
        return response.expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> violations(Map<String, Object> body) {
        return (List<Map<String, Object>>) body.get("violations");
    }

    private static String fixture(String name) throws Exception {
        try (InputStream in = InvalidInputIntegrationTests.class.getResourceAsStream("/perftest/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
