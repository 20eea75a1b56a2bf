package org.qplab.controller.database;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server ({@link PostgresBinaries}) with its data in a directory that survives restarts:
 * ~/.local/share/qplab/postgres, or /var/lib/qplab/postgres when the controller is root (the server then runs
 * as nobody). It listens on 127.0.0.1 only and lets in only the role qplab with the password from a 0600 file
 * next to the data directory ({@link EmbeddedPostgresAuth} says why and how).
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgres.class);
    /** Free ports tried when another process takes the one picked before PostgreSQL listens on it. */
    private static final int FREE_PORT_ATTEMPTS = 3;

    private final PostgresBinaries binaries;
    private final Path dataDir;
    private final int configuredPort;
    private int port;
    private final String database;
    private final Path passwordFile;
    private final boolean fsync;
    private String password;
    private FileChannel lockFile;
    private FileLock lock;

    private EmbeddedPostgres(PostgresBinaries binaries, Path dataDir, int configuredPort, String database,
                             Path passwordFile, boolean fsync) {
        this.binaries = binaries;
        this.dataDir = dataDir;
        this.configuredPort = configuredPort;
        this.database = database;
        this.passwordFile = passwordFile;
        this.fsync = fsync;
    }

    /**
     * Unpacks the binaries if needed, initialises the data directory if new, lets only qplab in (with the
     * password from its file, made if missing) and starts the server, on the configured port or else on a free
     * one. A password file others may read, a data directory another controller holds, or a configured port
     * another process listens on, is a {@link DatabaseRefusal}.
     */
    public static EmbeddedPostgres start(DatabaseProperties.Embedded config) throws IOException {
        if (!config.database().matches("[a-z_][a-z0-9_]*")) {
            throw new DatabaseRefusal("qplab.database.embedded.database must be a plain lower-case name, got " + config.database());
        }
        PostgresBinaries binaries = PostgresBinaries.forThisUser();
        Path base = binaries.asNobody() ? Path.of("/var/lib/qplab") : OsUser.dataHome().resolve("qplab");
        Path dataDir = (config.dataDir() != null ? Path.of(config.dataDir()) : base.resolve("postgres")).toAbsolutePath();
        Path passwordFile = config.passwordFile() != null ? Path.of(config.passwordFile()).toAbsolutePath()
                : EmbeddedPostgresAuth.passwordFileFor(dataDir);
        EmbeddedPostgres pg = new EmbeddedPostgres(binaries, dataDir, config.port(), config.database(), passwordFile,
                config.fsync());
        pg.lockDataDir();
        try {
            pg.password = PasswordFile.readOrCreate(passwordFile);
            binaries.unpack();
            pg.initIfNew();
            pg.stopOrphan();
            new EmbeddedPostgresAuth(binaries, dataDir, config.database(), config.fsync()).apply(pg.password);
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

    /** The database the controller uses (qplab.database.embedded.database). */
    public String database() {
        return database;
    }

    /** The role the controller logs in as: owns the database, is not a superuser. */
    public String username() {
        return EmbeddedPostgresAuth.ROLE;
    }

    /** The role's password, from {@link #passwordFile()}. */
    public String password() {
        return password;
    }

    public Path passwordFile() {
        return passwordFile;
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
            throw new DatabaseRefusal("another qplab controller is using the embedded PostgreSQL in " + dataDir
                    + " (lock " + lockPath + "): stop it, or give this one its own qplab.database.embedded.data-dir");
        }
    }

    private void initIfNew() throws IOException {
        if (Files.exists(dataDir.resolve("PG_VERSION"))) {
            return;
        }
        log.info("Creating a new PostgreSQL data directory at {}", dataDir);
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        binaries.chownToServer(dataDir);
        // nobody may log in until EmbeddedPostgresAuth has written pg_hba.conf and set qplab's password
        run(List.of(binaries.bin("initdb"), "-D", dataDir.toString(), "-U", "postgres", "-A", "reject",
                "-E", "UTF8", "--locale=C", "--no-instructions"), 120);
        Files.delete(dataDir.resolve("pg_hba.conf")); // initdb's, refusing everyone: ours replaces it, no backup needed
    }

    /** A controller that was killed leaves its server running; we hold the lock, so it is an orphan. */
    private void stopOrphan() throws IOException {
        if (Files.exists(dataDir.resolve("postmaster.pid"))
                && binaries.exec(List.of(binaries.bin("pg_ctl"), "-D", dataDir.toString(), "status"), null, 30).exit() == 0) {
            log.info("Stopping a PostgreSQL server left running on {}", dataDir);
            run(List.of(binaries.bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"), 60);
        }
    }

    /**
     * Starts the server on qplab.database.embedded.port, or on a free loopback port when it is 0 (then on another
     * one if a process takes the port first). The port is only ever on the command line: a port an older data
     * directory's postgresql.conf names is overridden.
     */
    private void startServer() throws IOException {
        for (int attempt = 1; ; attempt++) {
            port = configuredPort != 0 ? configuredPort : freePort();
            if (configuredPort != 0 && !isFree(port)) {
                throw portInUse();
            }
            long logBefore = logSize();
            try {
                pgCtlStart();
                break;
            } catch (IOException e) {
                if (!logSince(logBefore).contains("Address already in use")) {
                    throw e;
                }
                if (configuredPort != 0) {
                    throw portInUse();
                }
                if (attempt == FREE_PORT_ATTEMPTS) {
                    throw e;
                }
                log.info("Port {} was taken before PostgreSQL listened on it; trying another free port", port);
            }
        }
        log.info("Embedded PostgreSQL listening on 127.0.0.1:{} (data {}; role {}, password in {})", port, dataDir,
                EmbeddedPostgresAuth.ROLE, passwordFile);
    }

    private void pgCtlStart() throws IOException {
        // no unix socket: TCP on loopback, where pg_hba.conf asks for qplab's password, is the only way in
        String options = "-c listen_addresses=127.0.0.1 -p " + port + " -c unix_socket_directories=''"
                + " -c password_encryption=scram-sha-256"
                // when each transaction committed (pg_xact_commit_timestamp): when a stored frame became visible
                + " -c track_commit_timestamp=on"
                + (fsync ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        run(List.of(binaries.bin("pg_ctl"), "-D", dataDir.toString(), "-o", options,
                "-l", dataDir.resolve("postgres.log").toString(), "-w", "-t", "60", "start"), 90);
    }

    private DatabaseRefusal portInUse() {
        return new DatabaseRefusal("port " + port + " on 127.0.0.1 (qplab.database.embedded.port) is in use by another "
                + "process: stop it, or set qplab.database.embedded.port to another port, or to 0 (the default) for a "
                + "free one at each start");
    }

    private long logSize() {
        try {
            return Files.size(dataDir.resolve("postgres.log"));
        } catch (IOException e) {
            return 0; // none yet: pg_ctl makes it
        }
    }

    /** What the server logged after offset (pg_ctl appends to postgres.log at each start). */
    private String logSince(long offset) {
        try (InputStream in = Files.newInputStream(dataDir.resolve("postgres.log"))) {
            in.skipNBytes(offset);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        try {
            run(List.of(binaries.bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop"), 60);
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

    private void run(List<String> command, int timeoutSeconds) throws IOException {
        PostgresBinaries.Result result = binaries.exec(command, null, timeoutSeconds);
        if (result.exit() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + result.exit() + "):\n" + result.output()
                    + logTail());
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    /** Whether PostgreSQL could listen on 127.0.0.1:port (it sets SO_REUSEADDR as well: TIME_WAIT is no obstacle). */
    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
