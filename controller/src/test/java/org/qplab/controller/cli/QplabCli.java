package org.qplab.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the checkout's ./qplab script against a test's controller, as a script in a pipeline would. */
public final class QplabCli {

    private static final Path QPLAB = Path.of("..", "qplab").toAbsolutePath().normalize();

    /** Its exit code, standard output and standard error. */
    public record Result(int exit, String out, String err) {}

    private QplabCli() {
    }

    /** ./qplab ARGS against 127.0.0.1:port with the API token; polls every 0.2 s and waits at most 120 s. */
    public static Result run(int port, String token, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", QPLAB.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("QPLAB_URL", "http://127.0.0.1:" + port);
        builder.environment().put("QPLAB_TOKEN", token);
        builder.environment().put("QPLAB_POLL_SECONDS", "0.2");
        builder.environment().put("QPLAB_WAIT_SECONDS", "120");
        Process p = builder.start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        String out = read(p.getInputStream());
        assertThat(p.waitFor(150, TimeUnit.SECONDS)).as("qplab %s ended", List.of(args)).isTrue();
        return new Result(p.exitValue(), out, err.join());
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
