package org.qplab.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real agent process (the packaged jar named by the system property qplab.test.agent-jar, the real engine), as
 * tests start it; its log, spool, state and tmp directory under the module's target/.
 */
public final class AgentProcess implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final List<String> command;
    private final String token;

    private AgentProcess(Process process, Path log, List<String> command, String token) {
        this.process = process;
        this.log = log;
        this.command = command;
        this.token = token;
    }

    /** Where an agent with this id keeps its spool in tests (emptied when such an agent is first started). */
    public static Path spoolOf(String id) {
        return Path.of("target", "agent-spool", id).toAbsolutePath();
    }

    /**
     * Where an agent with this id keeps what it was issued by the controller at url (the token it enrolled with), in
     * tests: one directory per controller (by its port) and id, kept across starts, so that an agent started again
     * under the same id, by the same test or another of the same controller, registers with its own token, as a real
     * one does. A controller with a fresh database does not know the token: the agent enrols again.
     */
    public static Path stateOf(String url, String id) {
        return Path.of("target", "agent-state", java.net.URI.create(url).getPort() + "-" + id).toAbsolutePath();
    }

    /** The agent's own java.io.tmpdir in tests (emptied when such an agent is first started). */
    public static Path tmpOf(String id) {
        return Path.of("target", "agent-tmp", id).toAbsolutePath();
    }

    public static AgentProcess start(int controllerPort, String id, String token) throws IOException {
        return start(List.of(), "ws://127.0.0.1:" + controllerPort + "/agent", id, token);
    }

    /** An agent reaching the controller at url, with more flags (e.g. --health-port). */
    public static AgentProcess start(String url, String id, String token, List<String> flags) throws IOException {
        return start(List.of(), url, id, token, flags);
    }

    /** An agent started through a command prefix (e.g. `ip netns exec NS`), reaching the controller at url. */
    public static AgentProcess start(List<String> prefix, String url, String id, String token) throws IOException {
        return start(prefix, url, id, token, List.of());
    }

    /** An agent started through a command prefix, with more flags. */
    public static AgentProcess start(List<String> prefix, String url, String id, String token, List<String> flags)
            throws IOException {
        String jar = System.getProperty("qplab.test.agent-jar");
        if (jar == null || !new File(jar).isFile()) {
            throw new AssertionError("the agent jar is missing (" + jar + "): run the tests with ./mvnw verify, which packages "
                    + "the agent first");
        }
        Path log = Path.of("target", "agent-" + id + ".log");
        Files.deleteIfExists(log);
        TestDirs.delete(spoolOf(id));
        TestDirs.delete(tmpOf(id));
        Files.createDirectories(tmpOf(id));
        List<String> command = new java.util.ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmpOf(id), "-jar", jar,
                "--controller", url, "--id", id, "--heartbeat-seconds", "1",
                "--spool-dir", spoolOf(id).toString(), "--state-dir", stateOf(url, id).toString()));
        command.addAll(flags);
        return new AgentProcess(launch(command, token, log), log, command, token);
    }

    /** The token goes through the environment, as the agent takes it: never in argv, where ps shows it. */
    private static Process launch(List<String> command, String token, Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("QPLAB_AGENT_TOKEN", token);
        return builder.start();
    }

    /** SIGKILL: no shutdown hook, nothing flushed; what was only in its memory is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly(); // SIGKILL on Linux
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** The same agent again (same id, flags and spool), as a supervisor would restart it; its log goes on. */
    public AgentProcess restart() throws IOException {
        return new AgentProcess(launch(command, token, log), log, command, token);
    }

    public Process process() {
        return process;
    }

    public String log() {
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
