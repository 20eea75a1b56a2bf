package org.qplab.controller;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The controller as its own process (the same classes, the real embedded PostgreSQL), for tests that kill
 * it: SIGKILL leaves its PostgreSQL server running as an orphan, as a crash would, and a restart on the same
 * data directory has to cope with that.
 */
public final class ControllerProcess implements AutoCloseable {

    private final List<String> command;
    private final Path log;
    private final int port;
    private final Path dataDir;
    private Process process;

    private ControllerProcess(List<String> command, Path log, int port, Path dataDir) {
        this.command = command;
        this.log = log;
        this.port = port;
        this.dataDir = dataDir;
    }

    /**
     * A controller on port with its embedded PostgreSQL in dataDir on pgPort (0: not set, the default: a free port),
     * plus more properties (key=value).
     */
    public static ControllerProcess start(String name, int port, Path dataDir, int pgPort, List<String> properties)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), "org.qplab.controller.QplabApplication",
                "--server.port=" + port, "--qplab.database.embedded.data-dir=" + dataDir, "--qplab.database.embedded.fsync=false",
                "--qplab.security.admin-password=" + ControllerIntegrationTest.ADMIN_PASSWORD,
                "--qplab.security.cli-token-file=" + Path.of("target", "controller-" + name + ".token").toAbsolutePath()));
        if (pgPort != 0) {
            command.add("--qplab.database.embedded.port=" + pgPort);
        }
        properties.forEach(p -> command.add("--" + p));
        Path log = Path.of("target", "controller-" + name + ".log");
        Files.deleteIfExists(log);
        ControllerProcess controller = new ControllerProcess(command, log, port, dataDir);
        controller.launch();
        return controller;
    }

    private void launch() throws IOException, InterruptedException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        awaitReady(Duration.ofSeconds(120));
    }

    /** Waits until /actuator/health/readiness answers 200 (database included). */
    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the controller exited (" + process.exitValue() + ") while starting:\n" + log());
            }
            try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create(url() + "/actuator/health/readiness"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IOException("the controller was not ready within " + timeout + ":\n" + log());
    }

    /** The admin's API token this start of the controller made (as ./qplab's CLI gets its own). */
    public String token() {
        String name = log.getFileName().toString().replaceFirst("\\.log$", ".token");
        try {
            return Files.readString(log.resolveSibling(name)).strip();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** SIGKILL: no shutdown, its embedded PostgreSQL keeps running. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts it again with the same settings and waits until it is ready. */
    public void restart() throws IOException, InterruptedException {
        launch();
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no controller log: " + e.getMessage() + ")";
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * Stops it as a service manager would (SIGTERM: it stops its PostgreSQL too); a PostgreSQL a killed
     * controller left behind is stopped as well (fast shutdown).
     */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        try {
            Path pid = dataDir.resolve("postmaster.pid");
            if (Files.exists(pid)) {
                long postmaster = Long.parseLong(Files.readAllLines(pid).get(0).strip());
                ProcessHandle.of(postmaster).ifPresent(p -> {
                    try {
                        new ProcessBuilder("kill", "-INT", String.valueOf(postmaster)).start().waitFor(10, TimeUnit.SECONDS);
                        p.onExit().get(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        p.destroyForcibly();
                    }
                });
            }
        } catch (IOException | RuntimeException e) {
            // nothing left to stop
        }
    }
}
