package org.qplab.controller.deploy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.Optional;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Deploys, upgrades and stops the agent on inventory hosts over SSH. Blocking: the REST layer calls
 * it on a worker scheduler.
 *
 * <p>On the host, everything lives in the host's remote_dir (relative to the SSH user's home):
 * qplab-agent.jar (the agent with its native engine inside), agent.token (the per-agent token, mode
 * 600), agent.pid and agent.log. The agent is started with {@code setsid nohup java -jar ...}, so it
 * outlives the SSH session; it registers with the controller under the host's name. An agent.env the host's
 * operator keeps there sets the agent's environment ({@link #AGENT_ENV}).
 */
@Service
public class DeployService {

    private static final Logger log = LoggerFactory.getLogger(DeployService.class);
    static final String JAR_RESOURCE = "agent/qplab-agent.jar";
    private static final Duration COMMAND = Duration.ofSeconds(60);
    /**
     * The host's own agent settings: remote_dir/agent.env, when the host's operator put one there, is read as
     * environment (KEY=VALUE lines, shell syntax) before the agent starts, e.g. QPLAB_DATA_ADDRESS (the address of
     * the NIC benchmarks use: where a tcp server, a verbs control socket or an NVMe-oF target listens; else the
     * agent takes the address its route to the controller leaves from, often a management NIC) or
     * QPLAB_NVMEOF_BACKING. A file the shell cannot read fails the deploy.
     */
    static final String AGENT_ENV = "if [ -f agent.env ]; then set -a; . ./agent.env || { echo 'cannot read "
            + "agent.env' >&2; exit 1; }; set +a; fi; ";

    private final DeployProperties properties;
    private final HostRepository hosts;
    private final JdbcClient jdbc;
    private final Environment environment;
    private final SecureRandom random = new SecureRandom();

    public DeployService(DeployProperties properties, HostRepository hosts, JdbcClient jdbc, Environment environment) {
        this.properties = properties;
        this.hosts = hosts;
        this.jdbc = jdbc;
        this.environment = environment;
    }

    /** Uploads the agent (replacing a running one: that is also the upgrade), starts it, waits for it to register. */
    public HostRepository.Host deploy(String name, boolean pinHostKey) {
        HostRepository.Host host = claim(name);
        try (SshConnection ssh = SshConnection.open(properties, host, pinHostKey)) {
            progress(name, "checking the host");
            String[] probe = ssh.run("echo \"$SSH_CONNECTION\"; uname -sr; command -v " + properties.java()
                    + " >/dev/null && " + properties.java() + " -version 2>&1 | head -1 || echo NO-JAVA", COMMAND).split("\n");
            if (probe.length < 3 || probe[2].contains("NO-JAVA")) {
                throw new DeployException("no `" + properties.java() + "` on " + ssh.where() + ": install a Java 17+ "
                        + "runtime there (Debian: apt-get install openjdk-17-jre-headless) or set qplab.deploy.java");
            }
            byte[] jar = agentJar();
            String glibc = glibc(ssh, name, jar);
            String controllerUrl = controllerUrl(probe[0]);
            String dir = quote(host.remoteDir());
            ssh.run("mkdir -p " + dir + " && chmod 700 " + dir, COMMAND);
            stopAgent(ssh, host);

            progress(name, "uploading the agent");
            ssh.upload(new ByteArrayInputStream(jar), host.remoteDir() + "/qplab-agent.jar", 0644);
            String token = HexFormat.of().formatHex(randomBytes());
            ssh.upload(new ByteArrayInputStream(token.getBytes(StandardCharsets.US_ASCII)), host.remoteDir() + "/agent.token", 0600);
            hosts.deployed(name, token, sha256(jar));

            progress(name, "starting the agent");
            OffsetDateTime started = jdbc.sql("SELECT now()").query(OffsetDateTime.class).single();
            ssh.run("cd " + dir + " && (" + AGENT_ENV + "setsid nohup " + properties.java() + " -jar qplab-agent.jar --controller "
                    + quote(controllerUrl) + " --token-file agent.token --id " + quote(name)
                    + " > agent.log 2>&1 < /dev/null & echo $! > agent.pid)", COMMAND);

            progress(name, "waiting for the agent to register at " + controllerUrl);
            awaitRegistration(ssh, host, started);
            hosts.state(name, "RUNNING", "agent registered; " + probe[1].strip() + ", " + probe[2].strip() + ", " + glibc);
            log.info("deployed the agent to {} ({})", name, ssh.where());
            return hosts.get(name).orElseThrow();
        } catch (RuntimeException e) {
            hosts.state(name, "FAILED", e.getMessage());
            log.warn("deploy to {} failed: {}", name, e.getMessage());
            throw e;
        }
    }

    /**
     * The host's glibc against the one the jar's engine needs (GlibcFloor), before anything is copied: an older one
     * is refused with both versions. What to report when it passes.
     */
    private String glibc(SshConnection ssh, String name, byte[] jar) {
        Optional<GlibcFloor> floor = GlibcFloor.of(jar);
        if (floor.isEmpty()) {
            log.warn("the agent jar has no {}: {}'s glibc is not checked", GlibcFloor.ENTRY, name);
            return "glibc not checked (the agent jar does not record the glibc its engine needs)";
        }
        progress(name, "checking the host's glibc (the engine needs >= " + floor.get().needs() + ")");
        return floor.get().check(name, command -> ssh.exec(command, COMMAND).stdout());
    }

    /** Stops the host's agent (SIGTERM, then SIGKILL after 10 s). */
    public HostRepository.Host stop(String name) {
        HostRepository.Host host = claim(name);
        try (SshConnection ssh = SshConnection.open(properties, host, false)) {
            progress(name, "stopping the agent");
            String what = stopAgent(ssh, host);
            hosts.state(name, "STOPPED", what);
            return hosts.get(name).orElseThrow();
        } catch (RuntimeException e) {
            hosts.state(name, "FAILED", e.getMessage());
            throw e;
        }
    }

    /** The last lines of the agent's log on the host. */
    public String logs(String name, int lines) {
        HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
        try (SshConnection ssh = SshConnection.open(properties, host, false)) {
            return ssh.run("tail -n " + lines + " " + quote(host.remoteDir()) + "/agent.log 2>/dev/null || true", COMMAND);
        }
    }

    private HostRepository.Host claim(String name) {
        HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
        if (!hosts.claimForDeploy(name)) {
            throw new Conflict("host " + name + " is being deployed, upgraded or stopped right now; wait for it to end");
        }
        return host;
    }

    private String stopAgent(SshConnection ssh, HostRepository.Host host) {
        String pidFile = quote(host.remoteDir()) + "/agent.pid";
        return ssh.run("p=$(cat " + pidFile + " 2>/dev/null); "
                + "if [ -z \"$p\" ] || ! kill -0 \"$p\" 2>/dev/null; then echo 'no agent was running'; exit 0; fi; "
                + "kill \"$p\"; for i in $(seq 50); do kill -0 \"$p\" 2>/dev/null || { echo \"agent $p stopped\"; exit 0; }; "
                + "sleep 0.2; done; kill -9 \"$p\"; echo \"agent $p killed after 10 s\"", COMMAND).strip();
    }

    private void awaitRegistration(SshConnection ssh, HostRepository.Host host, OffsetDateTime since) {
        long deadline = System.nanoTime() + properties.registerTimeout().toNanos();
        String dir = quote(host.remoteDir());
        while (true) {
            Boolean registered = jdbc.sql("SELECT connected AND registered_at >= ? FROM agent WHERE id = ?")
                    .params(since, host.name()).query(Boolean.class).optional().orElse(false);
            if (registered) {
                return;
            }
            SshConnection.Result alive = ssh.exec("kill -0 $(cat " + dir + "/agent.pid)", COMMAND);
            if (!alive.ok()) {
                throw new DeployException("the agent on " + host.name() + " exited before it registered; its log:\n"
                        + ssh.run("tail -n 30 " + dir + "/agent.log", COMMAND));
            }
            if (System.nanoTime() > deadline) {
                throw new DeployException("the agent on " + host.name() + " runs but did not register within "
                        + properties.registerTimeout() + " (can it reach the controller? set qplab.deploy.controller-url); its log:\n"
                        + ssh.run("tail -n 30 " + dir + "/agent.log", COMMAND));
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DeployException("interrupted while waiting for the agent on " + host.name());
            }
        }
    }

    /** The URL agents connect to: configured, or this controller as the host sees it over SSH. */
    String controllerUrl(String sshConnection) {
        if (properties.controllerUrl() != null && !properties.controllerUrl().isBlank()) {
            return properties.controllerUrl();
        }
        String[] parts = sshConnection.strip().split("\\s+");
        if (parts.length < 1 || parts[0].isEmpty()) {
            throw new DeployException("could not tell the controller's address as the host sees it ($SSH_CONNECTION "
                    + "is empty): set qplab.deploy.controller-url");
        }
        String seenAs = parts[0];
        String listen = environment.getProperty("server.address", "0.0.0.0");
        try {
            InetAddress bound = InetAddress.getByName(listen);
            if (bound.isLoopbackAddress() && !InetAddress.getByName(seenAs).isLoopbackAddress()) {
                throw new DeployException("the controller listens on " + listen + " only, so the agent on a host that "
                        + "sees it as " + seenAs + " could not connect: start the controller with QPLAB_ADDRESS=0.0.0.0 "
                        + "(or that interface's address), or set qplab.deploy.controller-url");
            }
        } catch (UnknownHostException e) {
            throw new DeployException("server.address " + listen + " does not resolve: " + e.getMessage());
        }
        String port = environment.getProperty("local.server.port", environment.getProperty("server.port", "8080"));
        String host = seenAs.contains(":") ? "[" + seenAs + "]" : seenAs;
        return "ws://" + host + ":" + port + "/agent";
    }

    private byte[] agentJar() {
        try {
            ClassPathResource bundled = new ClassPathResource(JAR_RESOURCE);
            if (bundled.exists()) {
                try (InputStream in = bundled.getInputStream()) {
                    return in.readAllBytes();
                }
            }
            Path built = Path.of("agent", "target", "qplab-agent.jar");
            if (Files.isRegularFile(built)) {
                return Files.readAllBytes(built);
            }
        } catch (IOException e) {
            throw new DeployException("could not read the agent jar: " + e.getMessage(), e);
        }
        throw new DeployException("this controller was built without the agent jar (" + JAR_RESOURCE
                + "): build it with ./mvnw package");
    }

    private void progress(String name, String detail) {
        hosts.state(name, "DEPLOYING", detail);
    }

    private byte[] randomBytes() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A word for sh: single-quoted. */
    static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
