package org.qplab.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command run to its end: its exit status and its output (stdout and stderr together). */
public record Ran(int exit, String output) {

    /**
     * Runs command with stdin as its input, to its end: at most 2 minutes (a build of the engine, ~15 files with -j2,
     * takes seconds), else an AssertionError with what it printed.
     */
    public static Ran run(List<String> command, String stdin) throws IOException, InterruptedException {
        Path log = Files.createTempFile("run", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command + " did not finish within 2 minutes:\n" + Files.readString(log));
            }
            return new Ran(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.delete(log);
        }
    }
}
