package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;

class OpenApiIntegrationTests extends ControllerIntegrationTest {

    /** The operationIds name a generated client's methods: changing one breaks its users, so it is done on purpose. */
    private static final List<String> OPERATION_IDS = List.of("addHost", "cancelExperiment", "compareExperiments",
            "compareRuns", "compareWithBaselines", "createAccount", "deleteAccount", "deleteExperiment",
            "deleteExperimentTrace", "deleteRunTrace", "deployAgent", "exportExperimentRunsCsv", "exportExperimentsCsv",
            "exportRunIntervalsCsv", "followRun", "followExperiment", "getAgentLog", "getExperiment", "getExperimentCurve", "getExperimentPairs", "listAlerts", "listAlertDeliveries", "getExperimentSearch", "listChanges", "confirmChange", "dismissChange", "getHost",
            "getFingerprintHistory", "getMe", "getRun", "getRunFingerprint", "getRunHistogram", "getRunStorage", "getRunSummary",
            "getRunTimeline", "importPerftest", "issueAgentToken", "issueToken", "listAccounts", "listAgents",
            "listAuditEvents", "listBaselines", "listExperimentRuns", "listExperiments", "listHosts", "listMyTokens",
            "listRunIntervals", "listRunSamples", "markBaseline", "removeHost", "revokeAgentToken", "revokeToken",
            "setAccountPassword", "setAccountRole", "setMyPassword", "stopAgent", "submitExperiment", "unmarkBaseline",
            "upgradeAgent", "validateMatrix", "createSchedule", "listSchedules", "exportSchedulesCsv", "getSchedule",
            "enableSchedule", "disableSchedule", "deleteSchedule", "listControllers");

    @Test
    void servesAnOpenApiDocumentOfTheRestApi() {
        Map<String, Object> document = document();

        assertThat(String.valueOf(document.get("openapi"))).startsWith("3.");
        assertThat(((Map<?, ?>) document.get("info")).get("title")).isEqualTo("qplab");
        assertThat(((Map<?, ?>) document.get("paths")).keySet().stream().map(String::valueOf).toList()).contains(
                "/api/experiments", "/api/experiments/{id}", "/api/experiments/{id}/runs",
                "/api/experiments/{id}/cancel", "/api/experiments/{id}/curve", "/api/runs/{id}",
                "/api/runs/{id}/samples", "/api/runs/{id}/summary", "/api/compare", "/api/agents",
                "/api/experiments/validate", "/api/runs/{id}/live", "/api/experiments/{id}/live", "/api/runs/{id}/timeline", "/api/runs/{id}/histogram",
                "/api/runs/{id}/fingerprint", "/api/runs/{id}/baseline", "/api/baselines", "/api/compare/runs",
                "/api/compare/baselines", "/api/hosts", "/api/hosts/{name}/deploy", "/api/hosts/{name}/stop",
                "/api/runs/{id}/intervals", "/api/runs/{id}/intervals.csv", "/api/runs/{id}/storage",
                "/api/runs/{id}/trace", "/api/experiments/{id}/trace", "/api/fingerprints/{fingerprint}/history");
    }

    @Test
    void namesEveryOperationOnceAndSaysWhatItDoesAndWhichErrorsItAnswers() {
        Map<String, Object> document = document();

        List<String> ids = new ArrayList<>();
        map(document, "paths").forEach((path, item) -> ((Map<?, ?>) item).forEach((method, value) -> {
            Map<?, ?> operation = (Map<?, ?>) value;
            String where = method + " " + path;
            ids.add(String.valueOf(operation.get("operationId")));
            assertThat(String.valueOf(operation.get("summary"))).as(where).isNotBlank().isNotEqualTo("null");
            assertThat(String.valueOf(operation.get("description"))).as(where).isNotBlank().isNotEqualTo("null");
            Map<?, ?> responses = (Map<?, ?>) operation.get("responses");
            assertThat(responses.get("400")).as(where).isEqualTo(Map.of("$ref", "#/components/responses/BadRequest"));
            assertThat(responses.get("401")).as(where).isEqualTo(Map.of("$ref", "#/components/responses/Unauthorized"));
        }));
        assertThat(ids).containsExactlyInAnyOrderElementsOf(OPERATION_IDS);
    }

    @Test
    void describesTheSubmitWithTypedBodiesAndItsErrors() {
        Map<String, Object> document = document();

        Map<String, Object> submit = map(map(map(document, "paths"), "/api/experiments"), "post");
        assertThat(submit).containsEntry("operationId", "submitExperiment");
        Map<String, Object> body = map(map(submit, "requestBody"), "content");
        assertThat(body).containsOnlyKeys("application/json", "application/yaml");
        assertThat(map(body, "application/yaml"))
                .isEqualTo(Map.of("schema", Map.of("$ref", "#/components/schemas/Matrix")));
        Map<String, Object> responses = map(submit, "responses");
        assertThat(responses).containsOnlyKeys("201", "400", "401", "403", "413", "429");
        assertThat(map(map(map(responses, "201"), "content"), "application/json"))
                .isEqualTo(Map.of("schema", Map.of("$ref", "#/components/schemas/Experiment")));
        assertThat(responses.get("429")).isEqualTo(Map.of("$ref", "#/components/responses/TooManyRequests"));

        Map<String, Object> components = map(document, "components");
        assertThat(map(map(map(map(components, "responses"), "BadRequest"), "content"), "application/json"))
                .isEqualTo(Map.of("schema", Map.of("$ref", "#/components/schemas/BadRequestError")));
        Map<String, Object> badRequest = map(map(components, "schemas"), "BadRequestError");
        assertThat(badRequest.get("required")).isEqualTo(List.of("error"));
        assertThat(map(map(badRequest, "properties"), "violations").get("items"))
                .isEqualTo(Map.of("$ref", "#/components/schemas/Violation"));
        assertThat(map(map(components, "schemas"), "Violation").get("required")).isEqualTo(List.of("field", "message"));

        Map<String, Object> csv = map(map(map(document, "paths"), "/api/experiments/{id}/runs.csv"), "get");
        assertThat(map(map(map(csv, "responses"), "200"), "content")).containsOnlyKeys("text/csv");
        assertThat(map(csv, "responses").get("404")).isEqualTo(Map.of("$ref", "#/components/responses/NotFound"));
    }

    @Test
    void declaresTheBearerTokenAndTheSessionCookieAndTheUrlItIsServedFrom() {
        Map<String, Object> document = document();

        assertThat(document.get("servers")).asList().hasSize(1);
        assertThat(((Map<?, ?>) ((List<?>) document.get("servers")).get(0)).get("url"))
                .isEqualTo("http://127.0.0.1:" + port);
        Map<String, Object> schemes = map(map(document, "components"), "securitySchemes");
        assertThat(map(schemes, "apiToken")).containsEntry("type", "http").containsEntry("scheme", "bearer");
        assertThat(map(schemes, "session")).containsEntry("type", "apiKey").containsEntry("in", "cookie")
                .containsEntry("name", "SESSION");
        assertThat((String) map(schemes, "session").get("description")).contains("X-XSRF-TOKEN", "XSRF-TOKEN");
        assertThat(document.get("security"))
                .isEqualTo(List.of(Map.of("apiToken", List.of()), Map.of("session", List.of())));

        Map<String, Object> paths = map(document, "paths");
        assertThat((String) map(map(paths, "/api/runs/{id}"), "get").get("description"))
                .contains("qplab.security.anonymous-read");
        assertThat((String) map(map(paths, "/api/users"), "get").get("description"))
                .doesNotContain("anonymous-read");
    }

    @Test
    void describesAScheduleWithItsMatrixAsTextAndItsOccurrences() {
        Map<String, Object> schemas = map(map(document(), "components"), "schemas");

        Map<String, Object> body = map(map(schemas, "NewSchedule"), "properties");
        assertThat(body).containsOnlyKeys("name", "cron", "everyHours", "matrix", "contentType");
        assertThat(map(body, "matrix")).containsEntry("type", "string");
        assertThat(map(map(map(schemas, "RecurringSchedule"), "properties"), "occurrences").get("items"))
                .isEqualTo(Map.of("$ref", "#/components/schemas/Occurrence"));
        assertThat(map(map(map(schemas, "Occurrence"), "properties"), "outcome").get("enum"))
                .isEqualTo(List.of("SUBMITTED", "SKIPPED", "FAILED"));
    }

    @Test
    void describesExpectRulesAndTheVerdictsOfRunsAndExperiments() {
        Map<String, Object> schemas = map(map(document(), "components"), "schemas");

        assertThat((String) map(map(map(schemas, "Matrix"), "properties"), "expect").get("description"))
                .contains("bw_avg_gbps", ">= 0.95 * baseline", "PASS, FAIL or NOT_JUDGED");
        assertThat(String.valueOf(map(map(schemas, "Run"), "properties").get("expectation")))
                .contains("#/components/schemas/RunExpectation");
        assertThat(map(map(map(schemas, "RunExpectation"), "properties"), "verdict").get("enum"))
                .isEqualTo(List.of("PASS", "FAIL", "NOT_JUDGED"));
        assertThat(map(map(map(schemas, "RunExpectationRule"), "properties"), "result").get("enum"))
                .isEqualTo(List.of("PASS", "FAIL", "NO_BASELINE", "NOT_MEASURED", "UNREADABLE"));
        assertThat(map(map(schemas, "RunExpectationRule"), "properties")).containsKeys("rule", "metric", "unit",
                "measured", "limit", "baseline", "baselineRunId", "message");
        assertThat(String.valueOf(map(map(schemas, "Experiment"), "properties").get("expectations")))
                .contains("#/components/schemas/ExperimentExpectations");
        assertThat(map(map(map(schemas, "ExperimentExpectations"), "properties"), "verdict").get("enum"))
                .isEqualTo(List.of("PASS", "FAIL", "NOT_JUDGED", "PENDING"));
        assertThat(map(map(schemas, "ExpectationFailure"), "properties")).containsKeys("runId", "result", "rule",
                "message");
    }

    private Map<String, Object> document() {
        return http().get().uri("/v3/api-docs").exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody();
    }

    @Test
    @SuppressWarnings("unchecked")
    void theMatrixShowsTheEnginesParametersAndTheirBoundsAreTheOnesSubmitEnforces() {
        Map<String, Object> matrix = map(map(map(document(), "components"), "schemas"), "Matrix");
        List<Map<String, Object>> parameters = (List<Map<String, Object>>) matrix.get("x-engine-parameters");

        assertThat(parameters).extracting(p -> p.get("name")).containsExactlyInAnyOrderElementsOf(
                org.qplab.controller.experiment.ProviderKeys.all().stream()
                        .filter(p -> p.providers().contains("tcp") || p.providers().contains("verbs")) // the engine's
                        .map(org.qplab.controller.experiment.ProviderKey::key).toList());
        assertThat(parameters).filteredOn(p -> p.get("name").equals("transport")).singleElement()
                .satisfies(p -> assertThat(p.get("enum")).isEqualTo(List.of("rc", "uc", "ud", "xrc")));
        assertThat((String) map(map(matrix, "properties"), "base").get("description")).contains("- `post_list`: integer 1..")
                .contains("- `rw`: string (read, write, randread, randwrite, randrw)").contains("- `iodepth`: integer");
        int checked = 0;
        for (Map<String, Object> p : parameters) {
            if (!(p.get("maximum") instanceof Number max)) {
                continue;
            }
            String name = (String) p.get("name");
            String provider = Boolean.TRUE.equals(p.get("verbs_only")) ? "verbs" : "tcp";
            Map<String, Object> base = new java.util.LinkedHashMap<>(Map.of("provider", provider, "msg_size", 64));
            base.put(name, max.longValue() + 1);
            Map<String, Object> refused = http().post().uri("/api/experiments/validate")
                    .bodyValue(Map.of("name", "over " + name, "base", base)).exchange().expectStatus().isBadRequest()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat((List<Map<String, Object>>) refused.get("violations")).as("%s above the documented maximum %s", name, max)
                    .extracting(v -> v.get("field")).contains("base." + name);
            checked++;
        }
        assertThat(checked).as("integer parameters with a documented maximum").isGreaterThan(15);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<?, ?> parent, String key) {
        assertThat(parent.containsKey(key)).as(key + " in " + parent.keySet()).isTrue();
        return (Map<String, Object>) parent.get(key);
    }
}
