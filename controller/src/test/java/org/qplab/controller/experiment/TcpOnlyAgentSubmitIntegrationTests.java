package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.HiddenRdmaHeaders;
import org.qplab.testkit.Ran;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/**
 * A real agent whose engine was built without rdma-core's headers (the engine's Makefile with the headers hidden:
 * engine/src/test/c/hide-rdma-headers.sh) says so in its hello: GET /api/agents shows the reason in its facts, and a
 * verbs matrix on that host is one 400 naming the host and the packages to install, with nothing stored; a tcp
 * matrix on it is accepted.
 */
class TcpOnlyAgentSubmitIntegrationTests extends ControllerIntegrationTest {

    private static final String REASON = "this engine was built without rdma-core's headers: the verbs provider needs "
            + "libibverbs-dev and librdmacm-dev (dnf: rdma-core-devel) at build time; install them and rebuild";
    private static final Path ENGINE = Path.of("..", "engine").toAbsolutePath().normalize();
    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    @TempDir
    static Path out;

    @Autowired
    private AgentRegistry registry;

    @BeforeAll
    static void buildATcpOnlyEngine() throws Exception {
        try (HiddenRdmaHeaders hidden = HiddenRdmaHeaders.of(ENGINE, "cc")) {
            Ran make = hidden.make(out, out.resolve("libqpbench.so").toString());
            assertThat(make.exit()).as("make with the headers hidden:\n%s", make.output()).isZero();
        }
        assertThat(Files.readString(out.resolve("engine-flavor")).strip()).isEqualTo("tcp-only");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aVerbsMatrixOnATcpOnlyHostIsRefusedAtSubmitWithThePackagesAndItsFactsSayWhy() throws Exception {
        try (AgentProcess agent = AgentProcess.start(List.of("env", "QPLAB_ENGINE_LIBRARY=" + out.resolve("libqpbench.so")),
                "ws://127.0.0.1:" + port + "/agent", "tcponly", TOKEN)) {
            Await.until("tcponly is connected", Duration.ofSeconds(90), () -> {
                assertThat(agent.process().isAlive()).as("agent running; log:\n%s", agent.log()).isTrue();
                return registry.connectedFacts("tcponly") != null;
            }, agent::log);

            List<Map<String, Object>> agents = http().get().uri("/api/agents").exchange().expectStatus().isOk()
                    .expectBody(JSON_ARRAY).returnResult().getResponseBody();
            Map<String, Object> facts = agents.stream().filter(a -> "tcponly".equals(a.get("id")))
                    .map(a -> (Map<String, Object>) a.get("facts")).findFirst().orElseThrow();
            assertThat((Map<String, Object>) facts.get("engine")).containsEntry("providers", List.of("tcp"))
                    .containsEntry("verbs_unavailable", REASON);
            assertThat(facts).containsEntry("rdma_unavailable", REASON);

            long experiments = count("experiment");
            Map<String, Object> body = http().post().uri("/api/experiments").contentType(YAML).bodyValue("""
                    name: verbs on a tcp-only host
                    base: {provider: verbs, msg_size: 4096}
                    hosts: {loopback: [tcponly]}
                    """).exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat((List<Map<String, Object>>) body.get("violations")).singleElement().satisfies(v -> assertThat(v)
                    .containsEntry("field", "hosts")
                    .containsEntry("message", "host tcponly cannot run provider verbs: " + REASON));
            assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);

            http().post().uri("/api/experiments/validate").contentType(YAML).bodyValue("""
                    name: tcp on a tcp-only host
                    base: {provider: tcp, msg_size: 4096}
                    hosts: {loopback: [tcponly]}
                    """).exchange().expectStatus().isOk();
        }
    }
}
