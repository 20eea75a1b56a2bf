package org.qplab.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.api.client.ApiClient;
import org.qplab.api.client.ApiException;
import org.qplab.api.client.ApiResponse;
import org.qplab.api.client.api.QplabApi;
import org.qplab.api.client.model.BadRequestError;
import org.qplab.api.client.model.Curve;
import org.qplab.api.client.model.Experiment;
import org.qplab.api.client.model.ExperimentExpectations;
import org.qplab.api.client.model.RunExpectation;
import org.qplab.api.client.model.RunExpectationRule;
import org.qplab.api.client.model.Matrix;
import org.qplab.api.client.model.CurveDimension;
import org.qplab.api.client.model.CurvePoint;
import org.qplab.api.client.model.Run;
import org.qplab.api.client.model.Violation;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.ControllerProcess;
import org.qplab.testkit.ControllerProcess.Launch;

/**
 * The API driven with nothing but the client generated at build time from the document the packaged controller
 * serves: typed matrices, typed answers, typed violations. The client is strict (a property the document does not
 * name fails to read) and every answer must have a status and type the document declares for its operation
 * ({@link DocumentedResponses}), so where the document and the server disagree the build fails.
 */
class GeneratedClientIntegrationTests {

    private static final Path WORK_DIR = Path.of(System.getProperty("qplab.test.work-dir", "target/controller"));
    private static final Path GENERATED_FROM = Path.of(System.getProperty("qplab.test.openapi-document", "target/openapi.json"));
    private static final Path CONTROLLER_JAR = Path.of(System.getProperty("qplab.test.controller-jar",
            "../controller/target/qplab-controller.jar"));
    private static final Duration EXPERIMENT_ENDS_WITHIN = Duration.ofSeconds(120);

    private static ControllerProcess controller;
    private static AgentProcess agent;
    private static ObjectMapper json;
    private static DocumentedResponses documented;
    private static QplabApi api;

    @BeforeAll
    static void startControllerAndAgent() throws Exception {
        Launch launch = Launch.jar(CONTROLLER_JAR);
        controller = ControllerProcess.start(launch, WORK_DIR, "api-client", ControllerProcess.freePort(),
                WORK_DIR.resolve("controller-db"), ControllerProcess.freePort(), List.of());
        agent = AgentProcess.start(controller.port(), "api-client-agent", launch.agentToken());
        json = ApiClient.createDefaultObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        documented = new DocumentedResponses(json.readTree(GENERATED_FROM.toFile()));
        ApiClient client = new ApiClient(ApiClient.createDefaultHttpClientBuilder(), json, controller.url());
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + controller.token()));
        client.setResponseInterceptor(documented);
        client.setReadTimeout(Duration.ofSeconds(30));
        api = new QplabApi(client);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (agent != null) {
            agent.close();
        }
        if (controller != null) {
            controller.close();
        }
    }

    @AfterEach
    void everyAnswerWasOneTheDocumentDeclares() {
        assertThat(documented.takeUndocumented()).as("answers the OpenAPI document does not declare").isEmpty();
    }

    @Test
    void servesTheDocumentTheClientWasGeneratedFrom() throws Exception {
        JsonNode live = withoutServers(json.readTree(controller.apiDocument()));
        JsonNode generatedFrom = withoutServers(json.readTree(GENERATED_FROM.toFile()));

        assertThat(differences("", generatedFrom, live))
                .as("where the live /v3/api-docs differs from %s (the client's source)", GENERATED_FROM).isEmpty();
    }

    @Test
    void runsAMatrixAndReadsItsCurveAndItsRunsAsCsv() throws Exception {
        ApiResponse<Experiment> submitted = api.submitExperimentWithHttpInfo(new Matrix().name("generated-client")
                .base(Map.<String, Object>of("provider", "tcp", "threads", 1, "qps_per_thread", 1, "duration_ms", 200))
                .dimensions(Map.of("msg_size", List.<Object>of(64, "4K")))
                .repeats(1)
                .expect(Map.of("bw_avg_gbps", List.of("> 0", "<= 1e9"))));

        assertThat(submitted.getStatusCode()).isEqualTo(201);
        Experiment experiment = submitted.getData();
        assertThat(experiment.getName()).isEqualTo("generated-client");
        assertThat(experiment.getRunsTotal()).isEqualTo(2);

        Experiment ended = awaitEnd(experiment.getId());
        assertThat(ended.getStatus()).as("agent log:\n%s", agent.log()).isEqualTo(Experiment.StatusEnum.FINISHED);
        assertThat(ended.getRunsDone()).isEqualTo(2);
        assertThat(ended.getRunsFailed()).isZero();
        assertThat(ended.getExpectations().getVerdict()).isEqualTo(ExperimentExpectations.VerdictEnum.PASS);
        assertThat(ended.getExpectations().getRunsPassed()).isEqualTo(2);

        // no pins: nothing else varies (pins are form-exploded query parameters, qps_per_thread=8, which this
        // generator's Java client cannot write; curl and other generators can)
        Curve curve = api.getExperimentCurve(experiment.getId(), null, "msg_size", "bw_avg_bps", "threads", null);
        assertThat(curve.getSplit()).isEmpty();
        assertThat(curve.getDimensions()).extracting(CurveDimension::getName).containsExactly("msg_size");
        assertThat(curve.getX()).isEqualTo("msg_size");
        assertThat(curve.getY()).isEqualTo("bw_avg_bps");
        assertThat(curve.getPoints()).extracting(CurvePoint::getX).containsExactly(64.0, 4096.0);
        assertThat(curve.getPoints()).allSatisfy(point -> {
            assertThat(point.getN()).isEqualTo(1);
            assertThat(point.getY()).isPositive().isEqualTo(point.getMin()).isEqualTo(point.getMax());
            assertThat(((Number) point.getSeries()).intValue()).isEqualTo(1);
        });

        List<Run> runs = api.listExperimentRuns(experiment.getId());
        assertThat(runs).allSatisfy(run -> {
            assertThat(run.getExpectation().getVerdict()).isEqualTo(RunExpectation.VerdictEnum.PASS);
            assertThat(run.getExpectation().getRules()).extracting(RunExpectationRule::getRule)
                    .containsExactly("bw_avg_gbps > 0", "bw_avg_gbps <= 1000000000");
            assertThat(run.getExpectation().getRules()).allSatisfy(rule -> assertThat(rule.getResult())
                    .isEqualTo(RunExpectationRule.ResultEnum.PASS));
        });
        List<String> csv = Files.readAllLines(api.exportExperimentRunsCsv(experiment.getId()).toPath());
        List<String> header = Arrays.asList(csv.get(0).split(","));
        assertThat(header).startsWith("run", "repeat", "status").contains("msg_size", "provider", "bw_avg [B/s]");
        assertThat(csv).hasSize(1 + 2);
        for (String line : csv.subList(1, csv.size())) {
            List<String> cells = Arrays.asList(line.split(",", -1));
            assertThat(cells).hasSameSizeAs(header);
            assertThat(cells.get(header.indexOf("status"))).isEqualTo("FINISHED");
            assertThat(cells.get(header.indexOf("provider"))).isEqualTo("tcp");
            CurvePoint point = curve.getPoints().stream()
                    .filter(p -> p.getX() == Double.parseDouble(cells.get(header.indexOf("msg_size")))).findFirst().orElseThrow();
            assertThat(Double.parseDouble(cells.get(header.indexOf("bw_avg [B/s]"))))
                    .as("the CSV's bw_avg is the curve's point (one run each)").isCloseTo(point.getY(), within(point.getY() * 1e-9));
        }
        assertThat(csv.subList(1, csv.size())).extracting(line -> Long.parseLong(line.split(",")[0]))
                .containsExactlyInAnyOrderElementsOf(runs.stream().map(Run::getId).toList());
    }

    @Test
    void refusesAnInvalidMatrixWithTypedViolationsAndStoresNothing() throws Exception {
        Matrix invalid = new Matrix().name("generated-client-invalid")
                .base(Map.<String, Object>of("provider", "tcp", "msg_size", 64, "interval_ms", 5)).repeats(0);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> api.submitExperiment(invalid));

        assertThat(refused).as("a 400").isNotNull();
        assertThat(refused.getCode()).isEqualTo(400);
        BadRequestError error = json.readValue(refused.getResponseBody(), BadRequestError.class);
        assertThat(error.getError()).isEqualTo("invalid matrix");
        assertThat(error.getViolations()).containsExactlyInAnyOrder(
                new Violation().field("base.interval_ms")
                        .message("interval_ms must be 0 (the summary only) or in 10..60000 (got 5)"),
                new Violation().field("repeats").message("must be an integer between 1 and 1000, got 0"));
        assertThat(api.listExperiments(null, "generated-client-invalid")).isEmpty();
    }

    private static Experiment awaitEnd(long id) throws ApiException, InterruptedException {
        long deadline = System.nanoTime() + EXPERIMENT_ENDS_WITHIN.toNanos();
        Experiment experiment = api.getExperiment(id);
        while (!Set.of(Experiment.StatusEnum.FINISHED, Experiment.StatusEnum.FAILED, Experiment.StatusEnum.CANCELLED).contains(experiment.getStatus())) {
            assertThat(System.nanoTime()).as("experiment %d still %s after %s; agent log:\n%s", id, experiment.getStatus(),
                    EXPERIMENT_ENDS_WITHIN, agent.log()).isLessThan(deadline);
            Thread.sleep(250);
            experiment = api.getExperiment(id);
        }
        return experiment;
    }

    private static JsonNode withoutServers(JsonNode document) {
        ((ObjectNode) document).remove("servers"); // the port of each start
        return document;
    }

    /** JSON pointers where the two documents differ (at most 20), for a failure that says where. */
    private static List<String> differences(String at, JsonNode expected, JsonNode actual) {
        List<String> found = new ArrayList<>();
        if (expected.equals(actual)) {
            return found;
        }
        if (expected.isObject() && actual.isObject()) {
            Set<String> names = new java.util.TreeSet<>();
            expected.fieldNames().forEachRemaining(names::add);
            actual.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                String child = at + "/" + name.replace("~", "~0").replace("/", "~1");
                if (!expected.has(name) || !actual.has(name)) {
                    found.add(child + (expected.has(name) ? " is gone" : " is new"));
                } else {
                    found.addAll(differences(child, expected.get(name), actual.get(name)));
                }
            }
        } else if (expected.isArray() && actual.isArray() && expected.size() == actual.size()) {
            IntStream.range(0, expected.size()).forEach(i -> found.addAll(differences(at + "/" + i, expected.get(i), actual.get(i))));
        } else {
            found.add(at + ": " + abbreviate(expected) + " became " + abbreviate(actual));
        }
        return found.size() > 20 ? found.subList(0, 20) : found;
    }

    private static String abbreviate(JsonNode node) {
        String text = node.toString();
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }
}
