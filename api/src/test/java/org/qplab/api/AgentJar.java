package org.qplab.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The packaged agent (qplab-agent.jar, the real engine) as a process, so that tcp runs have somewhere to run. */
final class AgentJar implements AutoCloseable {

    private final Process process;
    private final Path log;

    private AgentJar(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * An agent on this machine, enrolled with the controller's shared enrolment secret (through the environment, not
     * argv); the token it is issued stays in workDir.
     */
    static AgentJar start(Path jar, ControllerJar controller, Path workDir) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no agent jar at " + jar + ": build the agent module first (./mvnw package)");
        }
        Path spool = workDir.resolve("agent-spool");
        Path tmp = Files.createDirectories(workDir.resolve("agent-tmp"));
        Path log = workDir.resolve("agent.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Djava.io.tmpdir=" + tmp,
                "-jar", jar.toString(), "--controller", "ws://127.0.0.1:" + controller.port() + "/agent",
                "--id", "api-client-agent", "--heartbeat-seconds", "1", "--spool-dir", spool.toString(),
                "--state-dir", workDir.resolve("agent-state").toString()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("QPLAB_AGENT_TOKEN", controller.agentToken());
        return new AgentJar(builder.start(), log);
    }

    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no agent log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
