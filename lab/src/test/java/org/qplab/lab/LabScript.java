package org.qplab.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The lab/lab script, run with one state directory (QPLAB_LAB_DIR). */
public final class LabScript {

    private final Path script;
    private final Path stateDir;
    private final Map<String, String> environment;

    public LabScript(Path script, Path stateDir) {
        this(script, stateDir, Map.of());
    }

    /** environment: more variables for the script, e.g. QPLAB_LAB_TIMEOUT. */
    public LabScript(Path script, Path stateDir, Map<String, String> environment) {
        this.script = script.toAbsolutePath();
        this.stateDir = stateDir.toAbsolutePath();
        this.environment = Map.copyOf(environment);
    }

    /**
     * The script: the system property {@code qplab.lab.script}, else {@code lab/lab} in the working
     * directory or the nearest parent that has one (a module's tests run in the module directory).
     */
    public static Optional<Path> locate() {
        String property = System.getProperty("qplab.lab.script");
        if (property != null) {
            return Optional.of(Path.of(property)).filter(Files::isExecutable);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("lab").resolve("lab");
            if (Files.isExecutable(candidate) && Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    public Path script() {
        return script;
    }

    public Path stateDir() {
        return stateDir;
    }

    /** Runs {@code lab ARGS...} to its end, killing it after timeout. */
    public CommandResult run(Duration timeout, String... args) throws IOException, InterruptedException {
        try (RemoteProcess process = start(timeout, args)) {
            return process.await();
        }
    }

    /** Starts {@code lab ARGS...}; its output goes to files until {@link RemoteProcess#await()}. */
    public RemoteProcess start(Duration timeout, String... args) throws IOException {
        Path outputs = stateDir.resolve("commands");
        Files.createDirectories(outputs);
        Path stdout = Files.createTempFile(outputs, "command", ".out");
        Path stderr = Files.createTempFile(outputs, "command", ".err");
        List<String> command = new ArrayList<>(List.of(script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(environment);
        builder.environment().put("QPLAB_LAB_DIR", stateDir.toString());
        return new RemoteProcess(builder.start(), stdout, stderr, System.nanoTime() + timeout.toNanos());
    }

    /** Runs {@code lab ARGS...} and returns its stdout, trimmed; fails on a non-zero exit. */
    public String output(Duration timeout, String... args) throws IOException, InterruptedException {
        CommandResult result = run(timeout, args);
        if (!result.succeeded()) {
            throw new IllegalStateException("lab " + String.join(" ", args) + " failed: " + result.describe());
        }
        return result.stdout().trim();
    }

    static void waitOrKill(Process process, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (!process.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
