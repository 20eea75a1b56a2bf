package org.qplab.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The controller as its own process, with its real embedded PostgreSQL: the packaged jar as an operator runs it, or
 * the controller module's classes for its tests that kill it. SIGKILL leaves its PostgreSQL server running as an
 * orphan, as a crash would, and a restart on the same data directory has to cope with that.
 *
 * <p>Its log and the admin's API token it writes at every start are dir/controller-NAME.log and .token. Secrets go
 * through the environment or properties, never a shell.
 */
public final class ControllerProcess implements AutoCloseable {

    private static final Duration READY_WITHIN = Duration.ofSeconds(180);
    private static final String AGENT_TOKEN = "QPLAB_AGENT_TOKEN";

    private final List<String> command;
    private final Map<String, String> environment;
    private final Path log;
    private final Path tokenFile;
    private final int port;
    private final Path dataDir;
    private Process process;

    private ControllerProcess(List<String> command, Map<String, String> environment, Path log, Path tokenFile, int port,
            Path dataDir) {
        this.command = command;
        this.environment = environment;
        this.log = log;
        this.tokenFile = tokenFile;
        this.port = port;
        this.dataDir = dataDir;
    }

    /** What runs: java with its flags and the controller (a jar or a main class), and its environment. */
    public record Launch(List<String> java, Map<String, String> environment) {

        /**
         * The packaged jar, as an operator runs it: the agents' enrolment secret and the first admin's password, both
         * random, through the environment. C1 only: a controller that lives a minute starts ~2 s sooner on 40 % less
         * CPU (a shared 2-core builder).
         */
        public static Launch jar(Path jar) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("no controller jar at " + jar
                        + ": build the controller module first (./mvnw package)");
            }
            return new Launch(List.of(javaCommand(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString()),
                    Map.of(AGENT_TOKEN, randomHex(), "QPLAB_ADMIN_PASSWORD", randomHex()));
        }

        /** A main class on a class path (the controller module's own tests: System.getProperty("java.class.path")). */
        public static Launch classes(String classPath, String mainClass) {
            return new Launch(List.of(javaCommand(), "-Xmx512m", "-cp", classPath, mainClass), Map.of());
        }

        /** The shared enrolment token an agent registers with, where it goes through the environment (else null). */
        public String agentToken() {
            return environment.get(AGENT_TOKEN);
        }
    }

    /**
     * A controller on port with its embedded PostgreSQL in dataDir on pgPort (0: not set, the default: a free port),
     * plus more properties (key=value); waits until it is ready and has written the admin's API token.
     */
    public static ControllerProcess start(Launch launch, Path dir, String name, int port, Path dataDir, int pgPort,
            List<String> properties) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path tokenFile = dir.resolve("controller-" + name + ".token").toAbsolutePath();
        List<String> command = new ArrayList<>(launch.java());
        command.addAll(List.of("--server.port=" + port, "--qplab.database.embedded.data-dir=" + dataDir.toAbsolutePath(),
                "--qplab.database.embedded.fsync=false", "--qplab.security.cli-token-file=" + tokenFile));
        if (pgPort != 0) {
            command.add("--qplab.database.embedded.port=" + pgPort);
        }
        properties.forEach(p -> command.add("--" + p));
        Path log = dir.resolve("controller-" + name + ".log");
        Files.deleteIfExists(log);
        ControllerProcess controller = new ControllerProcess(command, launch.environment(), log, tokenFile, port, dataDir);
        controller.launch();
        return controller;
    }

    /** Starts the process; a start that fails leaves nothing running. */
    private void launch() throws IOException, InterruptedException {
        Files.deleteIfExists(tokenFile);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
        try {
            awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Waits until /actuator/health/readiness answers 200 (database included) and the token is written. */
    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the controller exited (" + process.exitValue() + ") while starting:\n" + log());
            }
            try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create(url() + "/actuator/health/readiness"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200 && Files.size(tokenFile) > 0) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet, or no token written yet
            }
            Thread.sleep(250);
        }
        throw new IOException("the controller was not ready within " + READY_WITHIN + ":\n" + log());
    }

    /** The admin's API token this start of the controller made (as ./qplab's CLI gets its own). */
    public String token() {
        try {
            return Files.readString(tokenFile).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * POSTs body to path (as an admin), expecting 201, and returns the id the answer names (a new experiment's, a
     * new schedule's); anything else is an IOException with the status and the body.
     */
    public long create(String path, String contentType, String body) throws IOException, InterruptedException {
        HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url() + path))
                .header("Content-Type", contentType).header("Authorization", "Bearer " + token())
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(created.body());
        if (created.statusCode() != 201 || !id.find()) {
            throw new IOException("POST " + path + " answered " + created.statusCode() + ": " + created.body());
        }
        return Long.parseLong(id.group(1));
    }

    /** The OpenAPI document as it serves it now. */
    public String apiDocument() throws IOException, InterruptedException {
        HttpResponse<String> document = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url() + "/v3/api-docs"))
                .header("Authorization", "Bearer " + token()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (document.statusCode() != 200 || !document.body().startsWith("{")) {
            throw new IOException("GET /v3/api-docs answered " + document.statusCode() + ": " + document.body());
        }
        return document.body();
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

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String randomHex() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
