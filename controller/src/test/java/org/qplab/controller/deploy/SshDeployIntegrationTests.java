package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.TestDirs;
import org.springframework.http.MediaType;

/**
 * Deploys the agent over real SSH (OpenSSH's sshd in a network namespace) with JSch: host keys checked
 * against known_hosts, the agent jar uploaded over SFTP, started, registered with its per-agent token,
 * an experiment run on it, upgraded, stopped.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SshDeployIntegrationTests extends ControllerIntegrationTest {

    private static final String HOST = "ns-host";
    private static NamespaceSshd sshd;
    private static Path remoteDir;

    @BeforeAll
    static void startSshd() throws Exception {
        NamespaceSshd.assumeAvailable();
        Files.createDirectories(SSH_DIR);
        Path key = SSH_DIR.resolve("id_ed25519");
        Files.deleteIfExists(key);
        Files.deleteIfExists(Path.of(key + ".pub"));
        Process keygen = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())
                .redirectErrorStream(true).start();
        assertThat(keygen.waitFor(30, TimeUnit.SECONDS) && keygen.exitValue() == 0).as("ssh-keygen").isTrue();
        Files.deleteIfExists(SSH_DIR.resolve("known_hosts"));
        sshd = NamespaceSshd.start(SSH_DIR.resolve("sshd"), Path.of(key + ".pub"));
        remoteDir = SSH_DIR.resolve("remote");
        TestDirs.delete(remoteDir);
    }

    @AfterAll
    static void stopSshd() throws Exception {
        if (sshd != null) {
            sshd.close();
        }
    }

    @Test
    @Order(1)
    void aHostIsAddedToTheInventoryAndBadHostsAreRefusedWithEveryReason() {
        Map<String, Object> bad = http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"no spaces\",\"address\":\"a b\",\"sshPort\":0,\"sshUser\":\"Root!\"}")
                .exchange().expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat((List<Map<String, Object>>) bad.get("violations")).extracting(v -> v.get("field"))
                .containsExactlyInAnyOrder("name", "address", "sshPort", "sshUser");

        Map<String, Object> host = http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", HOST, "address", NamespaceSshd.ADDRESS, "remoteDir", remoteDir.toString()))
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(host).containsEntry("state", "ADDED").containsEntry("sshPort", 22).containsEntry("sshUser", "root")
                .containsEntry("agentConnected", false);
        http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", HOST, "address", NamespaceSshd.ADDRESS)).exchange().expectStatus().isEqualTo(409);
    }

    @Test
    @Order(2)
    void anUnknownHostKeyIsRefusedWithItsFingerprintAndWhatToDo() throws Exception {
        Map<String, Object> error = http().post().uri("/api/hosts/{name}/deploy", HOST).exchange()
                .expectStatus().isEqualTo(502).expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat((String) error.get("error")).contains("the host key of root@198.18.77.2:22 is not in "
                        + SSH_DIR.resolve("known_hosts") + " (ssh-ed25519 key fingerprint " + sshd.fingerprint() + ")")
                .contains("pinHostKey=true");
        assertThat(host()).containsEntry("state", "FAILED").containsEntry("agentConnected", false);
        assertThat(remoteDir.resolve("qplab-agent.jar")).as("nothing was uploaded").doesNotExist();
    }

    @Test
    @Order(3)
    void deployPinsTheKeyOnRequestUploadsStartsAndTheAgentRegistersWithItsOwnToken() throws Exception {
        Map<String, Object> deployed = http().post().uri("/api/hosts/{name}/deploy?pinHostKey=true", HOST)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(deployed).as("deploy answer").containsEntry("state", "RUNNING").containsEntry("agentConnected", true);
        assertThat((String) deployed.get("detail")).as("the host's glibc, checked against the engine's before the upload")
                .containsPattern("glibc \\d+\\.\\d+, the engine needs >= \\d+\\.\\d+");
        assertThat(Files.readString(SSH_DIR.resolve("known_hosts"))).as("the pinned key is the host's")
                .isEqualTo(sshd.knownHostsLine());
        String token = Files.readString(remoteDir.resolve("agent.token"));
        assertThat(token).as("a per-agent token, not the shared one").hasSize(64).isNotEqualTo(TOKEN);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(remoteDir.resolve("agent.token"))))
                .as("only the agent's user reads its token").isEqualTo("rw-------");
        assertThat(jdbc.sql("SELECT facts->>'hostname' FROM agent WHERE id = ?").param(HOST).query(String.class).single())
                .as("the agent's facts came from inside the namespace").isNotBlank();
        byte[] bundled;
        try (var in = getClass().getClassLoader().getResourceAsStream(DeployService.JAR_RESOURCE)) {
            bundled = in.readAllBytes();
        }
        assertThat(deployed.get("agentSha256")).as("the uploaded jar is the one bundled in the controller")
                .isEqualTo(sha256(bundled)).isEqualTo(sha256(Files.readAllBytes(remoteDir.resolve("qplab-agent.jar"))));

        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue("""
                        name: deployed
                        base: {provider: tcp, iterations: 2000}
                        dimensions: {msg_size: [64, 4K]}
                        """)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experimentId = ((Number) created.get("id")).longValue();
        Map<String, Object> ended = awaitExperimentEnd(experimentId, Duration.ofMinutes(2), this::agentLog);
        assertThat(ended).as("experiment on the deployed agent").containsEntry("status", "FINISHED").containsEntry("runsDone", 2);
        assertThat(jdbc.sql("SELECT DISTINCT agent_id FROM run WHERE experiment_id = ?").param(experimentId)
                .query(String.class).list()).containsExactly(HOST);
        assertThat(jdbc.sql("SELECT sum(cycles) FROM run_summary s JOIN run r ON r.id = s.run_id WHERE r.experiment_id = ?")
                .param(experimentId).query(Long.class).single()).isEqualTo(4000L);

        String logs = http().get().uri("/api/hosts/{name}/logs?lines=50", HOST).exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(logs).as("the agent's log, fetched over SSH").contains("registered");

        try (AgentProcess impostor = AgentProcess.start(port, HOST, token.substring(1) + "0")) {
            assertThat(impostor.process().waitFor(60, TimeUnit.SECONDS)).as("the impostor exits by itself").isTrue();
            assertThat(impostor.log()).contains("the controller refused this agent: agent token refused for agent '" + HOST + "'");
        }
        assertThat(host()).as("the deployed agent is untouched").containsEntry("agentConnected", true);
    }

    @Test
    @Order(4)
    void upgradeReplacesTheRunningAgentAndStopEndsIt() throws Exception {
        long before = agentPid();
        assertThat(jdbc.sql("SELECT facts->>'data_address' FROM agent WHERE id = ?").param(HOST).query(String.class).single())
                .as("without agent.env: the address the route to the controller leaves from").isEqualTo(NamespaceSshd.ADDRESS);
        // the host's own settings: the upgraded agent starts with them (an address no route would give)
        Files.writeString(remoteDir.resolve("agent.env"), "# this host's agent settings\nQPLAB_DATA_ADDRESS=198.18.77.9\n");
        Map<String, Object> upgraded = http().post().uri("/api/hosts/{name}/upgrade", HOST).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(upgraded).containsEntry("state", "RUNNING").containsEntry("agentConnected", true);
        assertThat(agentPid()).as("a new agent process").isNotEqualTo(before);
        assertThat(ProcessHandle.of(before).map(ProcessHandle::isAlive).orElse(false)).as("the old agent is gone").isFalse();
        assertThat(jdbc.sql("SELECT facts->>'data_address' FROM agent WHERE id = ?").param(HOST).query(String.class).single())
                .as("QPLAB_DATA_ADDRESS from remoteDir/agent.env").isEqualTo("198.18.77.9");

        long pid = agentPid();
        Map<String, Object> stopped = http().post().uri("/api/hosts/{name}/stop", HOST).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(stopped.get("state")).isEqualTo("STOPPED");
        assertThat((String) stopped.get("detail")).isEqualTo("agent " + pid + " stopped");
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (Boolean.TRUE.equals(host().get("agentConnected")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(host()).containsEntry("agentConnected", false);
    }

    @Test
    @Order(5)
    void aChangedHostKeyIsRefused() throws Exception {
        Path other = SSH_DIR.resolve("other_key");
        Files.deleteIfExists(other);
        Files.deleteIfExists(Path.of(other + ".pub"));
        new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other.toString()).start().waitFor(30, TimeUnit.SECONDS);
        String[] pub = Files.readString(Path.of(other + ".pub")).split("\\s+");
        Files.writeString(SSH_DIR.resolve("known_hosts"), NamespaceSshd.ADDRESS + " " + pub[0] + " " + pub[1] + "\n");
        Map<String, Object> error = http().post().uri("/api/hosts/{name}/deploy?pinHostKey=true", HOST).exchange()
                .expectStatus().isEqualTo(502).expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat((String) error.get("error")).contains("has CHANGED").contains("refusing to connect");
        Files.writeString(SSH_DIR.resolve("known_hosts"), sshd.knownHostsLine());
        http().delete().uri("/api/hosts/{name}", HOST).exchange().expectStatus().isNoContent();
    }

    private Map<String, Object> host() {
        return http().get().uri("/api/hosts/{name}", HOST).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private long agentPid() throws Exception {
        return Long.parseLong(Files.readString(remoteDir.resolve("agent.pid")).strip());
    }

    private String agentLog() {
        try {
            return "agent log:\n" + Files.readString(remoteDir.resolve("agent.log"));
        } catch (Exception e) {
            return "(no agent log: " + e + ")";
        }
    }

    private static String sha256(byte[] data) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(data));
    }

}
