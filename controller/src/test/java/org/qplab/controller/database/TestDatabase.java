package org.qplab.controller.database;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.qplab.testkit.TestDirs;

/**
 * Where tests put their embedded PostgreSQL: a new directory the server's user can reach, removed again
 * when the test JVM exits (a test run's databases hold gigabytes of WAL; left behind, a few runs fill the
 * disk). Directories of a JVM that was killed are removed by a later run.
 */
public final class TestDatabase {

    private static final Path TMP = Path.of("/tmp");
    private static final String PREFIX = "qplab-test-";
    /** A directory this old whose lock is free belongs to a test JVM that is gone. */
    private static final Duration STALE = Duration.ofMinutes(30);
    /** How long the exit hook waits for the controller's PostgreSQL to stop (it closes in its own hook). */
    private static final Duration STOP_WAIT = Duration.ofSeconds(90);
    private static final List<Path> CREATED = new ArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabase::removeCreated, "qplab-test-database-cleanup"));
    }

    private TestDatabase() {
    }

    public static Path freshDataDir() {
        removeStale();
        try {
            // /tmp, not a 0700 temp dir: when tests run as root the server runs as nobody and must reach it
            Path parent = Files.createDirectories(TMP.resolve(PREFIX + UUID.randomUUID()));
            synchronized (CREATED) {
                CREATED.add(parent);
            }
            return parent.resolve("postgres");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An embedded server in dataDir on a free port, with the default database and password file, fsync off. */
    public static DatabaseProperties.Embedded config(Path dataDir) {
        return new DatabaseProperties.Embedded(dataDir.toString(), 0, "qplab", false, null);
    }

    /** The password of the role qplab of the embedded server in dataDir (its file), for another controller to log in. */
    public static String password(Path dataDir) {
        try {
            return Files.readString(EmbeddedPostgresAuth.passwordFileFor(dataDir.toAbsolutePath())).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A connection to the qplab database as the controller makes one: the role qplab, the password from its file. */
    public static Connection connect(Path dataDir, int port) throws SQLException {
        try {
            String password = Files.readString(EmbeddedPostgresAuth.passwordFileFor(dataDir.toAbsolutePath())).strip();
            return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/qplab", EmbeddedPostgresAuth.ROLE, password);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The settings that point another controller at the embedded PostgreSQL of dataDir on port (an external database,
     * as a second controller sharing it is configured): spring.datasource.url, username and password.
     */
    public static List<String> externalSettings(Path dataDir, int port) {
        try {
            String password = Files.readString(EmbeddedPostgresAuth.passwordFileFor(dataDir.toAbsolutePath())).strip();
            return List.of("spring.datasource.url=jdbc:postgresql://127.0.0.1:" + port + "/qplab",
                    "spring.datasource.username=" + EmbeddedPostgresAuth.ROLE, "spring.datasource.password=" + password);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void removeCreated() {
        List<Path> dirs;
        synchronized (CREATED) {
            dirs = List.copyOf(CREATED);
        }
        Instant giveUp = Instant.now().plus(STOP_WAIT);
        for (Path dir : dirs) {
            // not by its lock: closing any channel on a file drops all of this JVM's locks on it (FileLock)
            while (!removeIfStopped(dir) && Instant.now().isBefore(giveUp)) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void removeStale() {
        Instant before = Instant.now().minus(STALE);
        List<Path> ours;
        synchronized (CREATED) {
            ours = List.copyOf(CREATED);
        }
        try (Stream<Path> dirs = Files.list(TMP)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(PREFIX)).toList()) {
                if (!ours.contains(dir) && Files.getLastModifiedTime(dir).toInstant().isBefore(before)) {
                    removeIfUnlocked(dir);
                }
            }
        } catch (IOException e) {
            // another run may be removing the same directories; whatever is left, the next run removes
        }
    }

    /**
     * Removes another JVM's test database directory unless a controller holds its lock (EmbeddedPostgres
     * takes it before starting the server and releases it after stopping it) or a server still runs in it.
     */
    private static boolean removeIfUnlocked(Path dir) {
        Path lockPath = dir.resolve("postgres.lock");
        if (Files.exists(lockPath)) {
            try (FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.WRITE);
                    FileLock lock = channel.tryLock()) {
                if (lock == null) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return removeIfStopped(dir);
    }

    private static boolean removeIfStopped(Path dir) {
        if (serverRunning(dir.resolve("postgres"))) {
            return false;
        }
        try {
            TestDirs.delete(dir);
        } catch (IOException | UncheckedIOException e) {
            // not ours to remove after all (another user's files): nothing to wait for either
        }
        return true;
    }

    private static boolean serverRunning(Path dataDir) {
        try {
            List<String> pid = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            return !pid.isEmpty() && ProcessHandle.of(Long.parseLong(pid.get(0).trim())).isPresent();
        } catch (IOException | NumberFormatException e) {
            return false; // no pid file (stopped, or never started), or one we cannot read
        }
    }
}
