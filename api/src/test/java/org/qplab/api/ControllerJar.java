package org.qplab.api;

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
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged controller (qplab-controller.jar) as a process, with its embedded PostgreSQL in workDir/controller-db:
 * the build starts it to fetch the OpenAPI document the client is generated from, the tests start it to call.
 *
 * <p>One file with nothing but the JDK: the build runs it in source-file mode ({@code java ControllerJar.java fetch
 * ...}) in generate-sources, before anything is compiled. Its secrets travel through the environment and 0600 files,
 * never argv.
 */
public final class ControllerJar implements AutoCloseable {

    private static final Duration READY_WITHIN = Duration.ofSeconds(180);

    private final Process process;
    private final Path workDir;
    private final int port;
    private final String agentToken;

    private ControllerJar(Process process, Path workDir, int port, String agentToken) {
        this.process = process;
        this.workDir = workDir;
        this.port = port;
        this.agentToken = agentToken;
    }

    /** {@code fetch JAR WORKDIR OUT}: starts the controller, writes its /v3/api-docs to OUT, stops it. */
    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !args[0].equals("fetch")) {
            System.err.println("usage: java ControllerJar.java fetch CONTROLLER_JAR WORK_DIR OUTPUT_FILE");
            System.exit(2);
        }
        try (ControllerJar controller = start(Path.of(args[1]), Path.of(args[2]))) {
            Path out = Path.of(args[3]);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, controller.apiDocument());
            System.out.println("OpenAPI document of " + args[1] + " written to " + out);
        }
    }

    /** Starts the jar on free ports and waits until it is ready and has written the admin's API token. */
    public static ControllerJar start(Path jar, Path workDir) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no controller jar at " + jar + ": build the controller module first (./mvnw package)");
        }
        Files.createDirectories(workDir);
        int port = freePort();
        String agentToken = randomHex();
        Files.deleteIfExists(tokenFile(workDir));
        Path log = workDir.resolve("controller.log");
        // C1 only: a controller that lives a minute starts ~2 s sooner on 40 % less CPU (a shared 2-core builder)
        ProcessBuilder builder = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(),
                "--server.port=" + port,
                "--qplab.database.embedded.data-dir=" + workDir.resolve("controller-db").toAbsolutePath(),
                "--qplab.database.embedded.port=" + freePort(), "--qplab.database.embedded.fsync=false",
                "--qplab.security.cli-token-file=" + tokenFile(workDir).toAbsolutePath()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("QPLAB_AGENT_TOKEN", agentToken);
        builder.environment().put("QPLAB_ADMIN_PASSWORD", randomHex());
        ControllerJar controller = new ControllerJar(builder.start(), workDir, port, agentToken);
        try {
            controller.awaitReady();
        } catch (IOException | InterruptedException | RuntimeException e) {
            controller.close();
            throw e;
        }
        return controller;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** The admin's API token this start made (the one ./qplab's CLI gets). */
    public String token() {
        try {
            return Files.readString(tokenFile(workDir)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The shared enrolment token an agent registers with (QPLAB_AGENT_TOKEN). */
    public String agentToken() {
        return agentToken;
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

    public String log() {
        try {
            return Files.readString(workDir.resolve("controller.log"));
        } catch (IOException e) {
            return "(no controller log: " + e.getMessage() + ")";
        }
    }

    private void awaitReady() throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the controller exited (" + process.exitValue() + ") while starting:\n" + tail());
            }
            try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(URI.create(url() + "/actuator/health/readiness"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200 && Files.size(tokenFile(workDir)) > 0) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet, or no token written yet
            }
            Thread.sleep(250);
        }
        throw new IOException("the controller was not ready within " + READY_WITHIN + ":\n" + tail());
    }

    private String tail() {
        List<String> lines = log().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** SIGTERM, as a service manager stops it: it stops its PostgreSQL too. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Path tokenFile(Path workDir) {
        return workDir.resolve("controller.token");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String randomHex() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
