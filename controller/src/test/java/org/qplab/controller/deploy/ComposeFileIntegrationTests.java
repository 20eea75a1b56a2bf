package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml is what `docker-compose config` accepts (no engine needed): PostgreSQL and two
 * controllers wired to it (the second on port 8081, started after the first), and the RDMA host's agent with host
 * networking, the RDMA devices, IPC_LOCK and unlimited memlock; without an agent token it refuses, saying so. The
 * lines marked HTTPS, uncommented, put both controllers on HTTPS with an SSL bundle and point the agent at wss://
 * with the controller's certificate.
 */
class ComposeFileIntegrationTests {

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
        return config(COMPOSE, env, args);
    }

    private static String[] config(Path file, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("docker-compose", "-f", file.toString(), "--project-directory",
                COMPOSE.getParent().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("QPLAB_AGENT_TOKEN");
        builder.environment().put("QPLAB_ADMIN_PASSWORD", "compose-test-password"); // required as well
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
        assertThat(services[1].lines().toList()).containsExactlyInAnyOrder("postgres", "controller", "controller-2",
                "agent");

        String[] all = config(Map.of("QPLAB_AGENT_TOKEN", "t0ken"), "--profile", "rdma-host", "config");
        assertThat(all[0]).as(all[1]).isEqualTo("0");
        String agent = service(all[1], "agent");
        assertThat(agent).contains("network_mode: host", "/dev/infiniband:/dev/infiniband", "- IPC_LOCK", "memlock: -1",
                "QPLAB_AGENT_TOKEN: t0ken");
        for (String name : List.of("controller", "controller-2")) {
            String controller = service(all[1], name);
            assertThat(controller).as(name).contains("SPRING_DATASOURCE_URL: jdbc:postgresql://postgres:5432/qplab",
                    "SPRING_DATASOURCE_USERNAME: qplab", "SPRING_DATASOURCE_PASSWORD: qplab", "QPLAB_AGENT_TOKEN: t0ken",
                    "QPLAB_ADMIN_PASSWORD: compose-test-password", "QPLAB_ADDRESS: 0.0.0.0",
                    "QPLAB_SECURITY_ALLOWEDHOSTS: " + name, "/opt/qplab/qplab-controller.jar",
                    "condition: service_healthy");
        }
        assertThat(service(all[1], "controller")).contains("published: 8080").doesNotContain("8081");
        assertThat(service(all[1], "controller-2")).as("the second controller, on 8081, starts after the first")
                .contains("published: 8081", "target: 8080", "controller:\n        condition: service_started");

        String[] hosts = config(Map.of("QPLAB_AGENT_TOKEN", "t0ken", "QPLAB_ALLOWED_HOSTS", "c1.lab",
                "QPLAB_ALLOWED_HOSTS_2", "c2.lab"), "config");
        assertThat(hosts[0]).as(hosts[1]).isEqualTo("0");
        assertThat(service(hosts[1], "controller")).contains("QPLAB_SECURITY_ALLOWEDHOSTS: c1.lab");
        assertThat(service(hosts[1], "controller-2")).contains("QPLAB_SECURITY_ALLOWEDHOSTS: c2.lab");
    }

    /** The rendered service's lines (its name's and those indented under it), up to the next service. */
    private static String service(String rendered, String name) {
        List<String> lines = rendered.lines().toList();
        int at = lines.indexOf("  " + name + ":");
        assertThat(at).as("service " + name + " in\n" + rendered).isNotNegative();
        StringBuilder service = new StringBuilder(lines.get(at)).append('\n');
        for (int i = at + 1; i < lines.size() && lines.get(i).startsWith("   "); i++) {
            service.append(lines.get(i)).append('\n');
        }
        return service.toString();
    }

    @Test
    void theLinesMarkedHttpsServeTheControllerFromAnSslBundleAndTheAgentTrustsIt() throws Exception {
        Path https = Files.createDirectories(Path.of("target")).resolve("docker-compose-https.yml");
        Files.writeString(https, Files.readString(COMPOSE).replaceAll("(?m)^( *)# (.*\\S) +# HTTPS$", "$1$2"));

        String[] all = config(https, Map.of("QPLAB_AGENT_TOKEN", "t0ken", "QPLAB_CONTROLLER", "wss://controller.lab:8080/agent"),
                "--profile", "rdma-host", "config");
        assertThat(all[0]).as(all[1]).isEqualTo("0");
        String agent = service(all[1], "agent");
        assertThat(agent).contains("QPLAB_CONTROLLER: wss://controller.lab:8080/agent",
                "QPLAB_CA_FILE: /etc/qplab/controller.pem", "/tls/controller.pem:/etc/qplab/controller.pem:ro");
        for (String name : List.of("controller", "controller-2")) {
            assertThat(service(all[1], name)).as(name).contains("SERVER_SSL_BUNDLE: qplab",
                    "SPRING_SSL_BUNDLE_PEM_QPLAB_KEYSTORE_CERTIFICATE: /etc/qplab/tls/controller.pem",
                    "SPRING_SSL_BUNDLE_PEM_QPLAB_KEYSTORE_PRIVATEKEY: /etc/qplab/tls/controller-key.pem",
                    "/tls:/etc/qplab/tls:ro");
        }
    }

    @Test
    void refusesToRenderWithoutAnAgentToken() throws Exception {
        String[] result = config(Map.of(), "config");
        assertThat(result[0]).isNotEqualTo("0");
        assertThat(result[1]).contains("set QPLAB_AGENT_TOKEN to the token agents must present");
    }
}
