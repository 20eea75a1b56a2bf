package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The live OpenAPI document passes Redocly's recommended ruleset (api/redocly.yaml) with no error and no warning.
 * It is written to target/openapi/openapi.json and linted by the Redocly CLI pinned in api/package-lock.json, which
 * ./mvnw verify installs (npm ci) when api/node_modules lacks it; without it this test fails, it never skips.
 * Redocly's report is kept next to the document (openapi.lint.json, and openapi.lint.log for what it printed besides).
 */
class OpenApiLintIntegrationTests extends ControllerIntegrationTest {

    private static final Path API = Path.of(System.getProperty("qplab.test.api-dir", "../api")).toAbsolutePath()
            .normalize();
    private static final Path REDOCLY = API.resolve("node_modules/.bin/redocly");
    private static final Path DIR = Path.of("target", "openapi").toAbsolutePath();
    private static final long LINT_SECONDS = 120;

    @Test
    void documentPassesRedoclysRecommendedRulesWithoutAProblem() throws Exception {
        Path document = DIR.resolve("openapi.json");
        Files.write(document, document());

        Lint lint = lint(document);

        assertThat(lint.errors() + lint.warnings()).as("problems redocly lint found in " + document + lint).isZero();
        assertThat(lint.exit()).as("redocly lint's exit status" + lint).isZero();
    }

    /** The check above is only worth something if redocly, run this way, does see a problem. */
    @Test
    void lintFailsADocumentWithAnOperationWithoutSummary() throws Exception {
        ObjectNode broken = (ObjectNode) JsonMapper.shared().readTree(document());
        ObjectNode submit = (ObjectNode) broken.path("paths").path("/api/experiments").path("post");
        assertThat(submit.remove("summary")).as("the submit's summary").isNotNull();
        Path document = DIR.resolve("openapi-without-a-summary.json");
        Files.writeString(document, JsonMapper.shared().writeValueAsString(broken));

        Lint lint = lint(document);

        assertThat(lint.errors()).as("errors" + lint).isEqualTo(1);
        assertThat(lint.problems()).as("problems" + lint)
                .contains("error operation-summary: Operation object should contain `summary` field. at "
                        + "#/paths/~1api~1experiments/post/summary");
        assertThat(lint.exit()).as("redocly lint's exit status" + lint).isNotZero();
    }

    private byte[] document() throws IOException {
        Files.createDirectories(DIR);
        return http().get().uri("/v3/api-docs").exchange().expectStatus().isOk().expectBody().returnResult()
                .getResponseBody();
    }

    /** What redocly lint said: its exit status, its counts and its problems, one a line. */
    private record Lint(int exit, int errors, int warnings, List<String> problems, String printed) {

        @Override
        public String toString() {
            return " (exit " + exit + "):" + problems.stream().map(p -> "\n  " + p).collect(Collectors.joining())
                    + (printed.isBlank() ? "" : "\nand it printed:\n" + printed);
        }
    }

    private static Lint lint(Path document) throws IOException, InterruptedException {
        assertThat(Files.isExecutable(REDOCLY)).as(REDOCLY + " is missing: run `npm ci --prefix api` (./mvnw verify "
                + "does it when npm is installed; Debian: nodejs npm)").isTrue();
        String name = document.getFileName().toString().replaceFirst("\\.json$", "");
        Path report = DIR.resolve(name + ".lint.json");
        Path log = DIR.resolve(name + ".lint.log");
        ProcessBuilder command = new ProcessBuilder(REDOCLY.toString(), "lint", "--config",
                API.resolve("redocly.yaml").toString(), "--format=json", "--max-problems=1000", document.toString())
                .redirectOutput(report.toFile()).redirectError(log.toFile());
        command.environment().put("REDOCLY_TELEMETRY", "off");
        command.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
        Process process = command.start();
        boolean ended = process.waitFor(LINT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String printed = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("redocly lint ended within " + LINT_SECONDS + " s; it printed:\n" + printed).isTrue();
        String json = Files.readString(report, StandardCharsets.UTF_8);
        JsonNode result;
        try {
            result = JsonMapper.shared().readTree(json);
        } catch (RuntimeException e) {
            throw new AssertionError("redocly lint (exit " + process.exitValue() + ") wrote no JSON report:\n" + json
                    + "\n" + printed, e);
        }
        List<String> problems = new ArrayList<>();
        for (JsonNode problem : result.path("problems")) {
            problems.add(problem.path("severity").asString() + " " + problem.path("ruleId").asString() + ": "
                    + problem.path("message").asString() + " at "
                    + problem.path("location").path(0).path("pointer").asString());
        }
        return new Lint(process.exitValue(), result.path("totals").path("errors").asInt(),
                result.path("totals").path("warnings").asInt(), problems, printed);
    }
}
