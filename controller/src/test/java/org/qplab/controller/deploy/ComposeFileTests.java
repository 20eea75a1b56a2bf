package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml is what `docker-compose config` accepts (no engine needed): PostgreSQL and the
 * controller wired to it, and the RDMA host's agent with host networking, the RDMA devices, IPC_LOCK
 * and unlimited memlock; without an agent token it refuses, saying so.
 */
class ComposeFileTests {

    private static final Path COMPOSE = Path.of("..", "docker-compose.yml").toAbsolutePath().normalize();

    @BeforeAll
    static void composeIsInstalled() {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            found |= new File(dir, "docker-compose").canExecute();
        }
        Assumptions.assumeTrue(found, "docker-compose is not installed (Debian: docker-compose); .ci/run installs it");
    }

    private static String[] config(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("docker-compose", "-f", COMPOSE.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("QPLAB_AGENT_TOKEN");
        builder.environment().putAll(env);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("docker-compose config ended").isTrue();
        return new String[] {String.valueOf(process.exitValue()), out};
    }

    @Test
    void validatesWithTheControllerOnPostgresAndAnRdmaAgentTemplate() throws Exception {
        String[] services = config(Map.of("QPLAB_AGENT_TOKEN", "t0ken"), "config", "--services");
        assertThat(services[0]).as(services[1]).isEqualTo("0");
        assertThat(services[1].lines().toList()).containsExactlyInAnyOrder("postgres", "controller", "agent");

        String[] all = config(Map.of("QPLAB_AGENT_TOKEN", "t0ken"), "--profile", "rdma-host", "config");
        assertThat(all[0]).as(all[1]).isEqualTo("0");
        String agent = all[1].substring(all[1].indexOf("\n  agent:"), all[1].indexOf("\n  controller:"));
        assertThat(agent).contains("network_mode: host", "/dev/infiniband:/dev/infiniband", "- IPC_LOCK", "memlock: -1",
                "QPLAB_AGENT_TOKEN: t0ken");
        String controller = all[1].substring(all[1].indexOf("\n  controller:"), all[1].indexOf("\n  postgres:"));
        assertThat(controller).contains("SPRING_DATASOURCE_URL: jdbc:postgresql://postgres:5432/qplab",
                "condition: service_healthy");
    }

    @Test
    void refusesToRenderWithoutAnAgentToken() throws Exception {
        String[] result = config(Map.of(), "config");
        assertThat(result[0]).isNotEqualTo("0");
        assertThat(result[1]).contains("set QPLAB_AGENT_TOKEN to the token agents must present");
    }
}
