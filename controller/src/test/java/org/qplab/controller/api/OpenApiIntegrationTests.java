package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;

class OpenApiIntegrationTests extends ControllerIntegrationTest {

    @Test
    void servesAnOpenApiDocumentOfTheRestApi() {
        Map<String, Object> document = http().get().uri("/v3/api-docs").exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();

        assertThat(String.valueOf(document.get("openapi"))).startsWith("3.");
        assertThat(((Map<?, ?>) document.get("info")).get("title")).isEqualTo("qplab");
        assertThat(((Map<?, ?>) document.get("paths")).keySet().stream().map(String::valueOf).toList()).contains(
                "/api/experiments", "/api/experiments/{id}", "/api/experiments/{id}/runs",
                "/api/experiments/{id}/cancel", "/api/experiments/{id}/curve", "/api/runs/{id}",
                "/api/runs/{id}/samples", "/api/runs/{id}/summary", "/api/compare", "/api/agents",
                "/api/experiments/validate", "/api/runs/{id}/live", "/api/runs/{id}/timeline", "/api/runs/{id}/histogram",
                "/api/runs/{id}/fingerprint", "/api/runs/{id}/baseline", "/api/baselines", "/api/compare/runs",
                "/api/compare/baselines", "/api/hosts", "/api/hosts/{name}/deploy", "/api/hosts/{name}/stop",
                "/api/runs/{id}/intervals", "/api/runs/{id}/intervals.csv", "/api/runs/{id}/storage",
                "/api/runs/{id}/trace", "/api/experiments/{id}/trace");
    }
}
