package org.qplab.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A command running in the background (a {@code lab ...} invocation, e.g. a server in a VM over ssh)
 * whose output goes to files, so that it can be read while it runs. Killed at its deadline.
 */
public final class RemoteProcess implements AutoCloseable {

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final long deadlineNanos;

    RemoteProcess(Process process, Path stdout, Path stderr, long deadlineNanos) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.deadlineNanos = deadlineNanos;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** What it has written to stdout so far. */
    public String stdoutSoFar() {
        return read(stdout);
    }

    /** Waits for the end (killing it at its deadline) and returns how it ended; a killed one exits non-zero. */
    public CommandResult await() throws InterruptedException {
        LabScript.waitOrKill(process, deadlineNanos);
        return new CommandResult(process.exitValue(), read(stdout), read(stderr));
    }

    @Override
    public void close() throws InterruptedException {
        LabScript.waitOrKill(process, System.nanoTime());
        try {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
