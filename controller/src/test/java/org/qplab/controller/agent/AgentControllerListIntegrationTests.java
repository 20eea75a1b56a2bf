package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * An agent given several controllers (`--controller URL,URL`, for controllers sharing one database) leaves one it
 * cannot reach for the next: here the first is a loopback port nothing listens on, the second this controller, which
 * the agent registers with and runs an experiment for.
 */
class AgentControllerListIntegrationTests extends ControllerIntegrationTest {

    @Test
    void anAgentGoesOnToTheNextControllerWhenTheFirstCannotBeReached() throws Exception {
        int dead;
        try (ServerSocket free = new ServerSocket(0)) {
            dead = free.getLocalPort(); // closed again: nothing listens there
        }
        String unreachable = "ws://127.0.0.1:" + dead + "/agent";
        String live = "ws://127.0.0.1:" + port + "/agent";
        try (AgentProcess agent = AgentProcess.start(List.of(), unreachable + "," + live, "listed-agent", TOKEN)) {
            awaitAgentsConnected(List.of("listed-agent"), agent::log);
            // the controller has it connected before the agent has read its welcome and logged it
            Await.until("the agent logs its registration", Duration.ofSeconds(10),
                    () -> agent.log().contains("registered with " + live), agent::log);
            assertThat(agent.log()).contains("cannot reach the controller at " + unreachable + ": ")
                    .contains("retrying with " + live).contains("registered with " + live + " as listed-agent");

            long id = ((Number) http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                    .bodyValue("hosts: {loopback: [listed-agent]}\nbase: {provider: tcp, msg_size: 4K, iterations: 200}\n")
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                    .get("id")).longValue();
            Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(1), agent::log);
            assertThat(ended.get("status")).isEqualTo("FINISHED");
        }
    }
}
