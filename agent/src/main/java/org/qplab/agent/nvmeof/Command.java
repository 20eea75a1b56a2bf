package org.qplab.agent.nvmeof;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The nvmeof provider's contact with the host: external commands run with a timeout, and configfs/sysfs
 * writes, each failure naming its step and what the tool or the kernel said.
 */
final class Command {

    /** Bytes of a command's output kept for its result (the tail is what matters). */
    private static final int OUTPUT_LIMIT = 8192;

    private Command() {
    }

    /** What a command did: its exit code (-1: timed out and killed; 127: could not start) and output. */
    record Result(int exit, String output) {
        boolean ok() {
            return exit == 0;
        }
    }

    /** Runs argv (stdout and stderr together) and waits at most timeout; a command still running is killed. */
    static Result run(Duration timeout, List<String> argv) {
        Process process;
        try {
            process = new ProcessBuilder(argv).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
                    Path.of("/dev/null").toFile())).start();
        } catch (IOException e) {
            return new Result(127, e.getMessage());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(process.getInputStream(), out), "qplab-command-output");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(2, TimeUnit.SECONDS);
                reader.join(1000);
                return new Result(-1, text(out) + " (timed out after " + timeout.toMillis() + " ms, killed)");
            }
            reader.join(2000);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(-1, text(out) + " (interrupted)");
        }
        return new Result(process.exitValue(), text(out));
    }

    /** Runs argv and throws, naming step, the command and its output, unless it exits 0. */
    static Result require(String step, Duration timeout, List<String> argv) {
        Result result = run(timeout, argv);
        if (!result.ok()) {
            throw NvmeofException.failed(step + ": `" + String.join(" ", argv) + "` "
                    + (result.exit() == -1 ? "did not finish" : result.exit() == 127 ? "could not start"
                    : "exited " + result.exit()) + ": " + oneLine(result.output()) + kernelSaid());
        }
        return result;
    }

    /** Writes value to a configfs or sysfs attribute; throws "step X: writing V to PATH: errno text". */
    static void write(String step, Path path, String value) {
        try {
            Files.writeString(path, value, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw NvmeofException.failed(step + ": writing " + value.strip() + " to " + path + ": " + errno(e) + kernelSaid());
        }
    }

    static void mkdir(String step, Path dir) {
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            throw NvmeofException.failed(step + ": mkdir " + dir + ": " + errno(e) + kernelSaid());
        }
    }

    static void symlink(String step, Path link, Path target) {
        try {
            Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw NvmeofException.failed(step + ": ln -s " + target + " " + link + ": " + errno(e) + kernelSaid());
        }
    }

    /** Teardown: writes value when the attribute exists; returns what went wrong, or null (a missing one is fine). */
    static String writeIfPresent(String step, Path path, String value) {
        if (!Files.exists(path)) {
            return null;
        }
        try {
            Files.writeString(path, value, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            return null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            return step + ": writing " + value.strip() + " to " + path + ": " + errno(e);
        }
    }

    /** Teardown: removes a configfs item (rmdir) or link (unlink); returns what went wrong, or null (missing is fine). */
    static String remove(String step, Path path) {
        try {
            try {
                Files.deleteIfExists(path);
            } catch (DirectoryNotEmptyException e) {
                // configfs takes an item's default groups (a port's subsystems/, a subsystem's namespaces/) and its
                // attributes with it; a tree of plain directories and files (the tests' configfs) has them removed
                // first. configfs refuses rmdir of a default group and unlink of an attribute (EPERM), so on the real
                // thing this changes nothing.
                for (Path child : Leftovers.list(path)) {
                    if (Files.isRegularFile(child, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                            || Files.isDirectory(child, java.nio.file.LinkOption.NOFOLLOW_LINKS) && Leftovers.list(child).isEmpty()) {
                        try {
                            Files.delete(child);
                        } catch (IOException ignored) {
                            // a default group or an attribute of the real configfs
                        }
                    }
                }
                Files.deleteIfExists(path);
            }
            return null;
        } catch (IOException e) {
            return step + ": removing " + path + ": " + errno(e);
        }
    }

    /** The C library's words for the errno behind e. */
    static String errno(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        } else if (e instanceof AccessDeniedException) {
            return "Permission denied";
        } else if (e instanceof FileAlreadyExistsException) {
            return "File exists";
        } else if (e instanceof DirectoryNotEmptyException) {
            return "Directory not empty";
        } else if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return String.valueOf(e.getMessage());
    }

    /** The kernel log's last line, as " (dmesg: ...)", or "" when it cannot be read. */
    static String kernelSaid() {
        Result dmesg = run(Duration.ofSeconds(3), List.of("dmesg"));
        if (!dmesg.ok() || dmesg.output().isBlank()) {
            return "";
        }
        String[] lines = dmesg.output().strip().split("\n");
        return " (dmesg: " + lines[lines.length - 1].strip() + ")";
    }

    static String oneLine(String output) {
        String text = output.strip().replaceAll("\\s*\\n\\s*", "; ");
        return text.isEmpty() ? "(no output)" : text;
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buf = new byte[4096];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (out) {
                    if (out.size() > OUTPUT_LIMIT) {
                        byte[] tail = java.util.Arrays.copyOfRange(out.toByteArray(), out.size() - OUTPUT_LIMIT / 2, out.size());
                        out.reset();
                        out.write(tail, 0, tail.length);
                    }
                    out.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
