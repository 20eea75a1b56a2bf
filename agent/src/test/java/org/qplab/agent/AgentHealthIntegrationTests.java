package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

class AgentHealthIntegrationTests {

    private final AtomicReference<String> stuck = new AtomicReference<>();

    private final AgentHealth.State state = new AgentHealth.State() {
        public boolean registered() {
            return true;
        }

        public long currentRunId() {
            return 16;
        }

        public String engineStuck() {
            return stuck.get();
        }

        public int spooled() {
            return 0;
        }

        public long spoolMemoryBytes() {
            return 0;
        }

        public long spoolDiskBytes() {
            return 0;
        }

        public long spilledFrames() {
            return 0;
        }

        public long runsEnded() {
            return 3;
        }
    };

    @Test
    void aStuckEngineMakesTheAgentNotReadyAndSaysWhy() throws Exception {
        try (AgentHealth health = AgentHealth.start("127.0.0.1", 0, "vm2", state)) {
            HttpResponse<String> ready = get(health, "/health/readiness");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).contains("\"engine\":\"ok\"");
            assertThat(get(health, "/metrics").body()).contains("\nqplab_agent_engine_stuck 0\n");

            stuck.set("the engine on this agent is stuck: run 16 has not ended 25 s after it was told to stop (\"quoted\")");
            HttpResponse<String> notReady = get(health, "/health/readiness");
            assertThat(notReady.statusCode()).isEqualTo(503);
            ObjectMapper json = JsonMapper.builder().build();
            assertThat(json.readTree(notReady.body()).get("engine").asString()).isEqualTo(stuck.get());
            assertThat(json.readTree(notReady.body()).get("controller").asString()).isEqualTo("connected");
            assertThat(get(health, "/health/liveness").statusCode()).as("the process still answers").isEqualTo(200);
            assertThat(get(health, "/metrics").body()).contains("\nqplab_agent_engine_stuck 1\n");
        }
    }

    private static HttpResponse<String> get(AgentHealth health, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
