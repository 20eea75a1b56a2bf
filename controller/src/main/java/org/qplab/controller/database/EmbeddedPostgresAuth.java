package org.qplab.controller.database;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.util.PasswordUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use the embedded PostgreSQL: the role qplab, with the password from its {@link PasswordFile}
 * (scram-sha-256), over TCP on 127.0.0.1, to its one database; nobody else, by no other way.
 *
 * <p>The controller connects as qplab, which owns the database and everything in it but is not a superuser.
 * The superuser postgres has no password, no line in pg_hba.conf and the server has no unix socket: it can
 * only be used in single-user mode ({@code postgres --single}), with the server stopped, by the OS user that
 * owns the data directory — who can read every file of the database anyway. That is how this class sets the
 * roles up, before each start. Not a socket with peer authentication for the superuser: the controller could
 * not use it (PostgreSQL's JDBC driver needs a native library for unix sockets, and the binaries jar has no
 * psql), and when the controller is root the server's OS user is nobody, which other services share. So
 * a compromised controller gets qplab's data, not COPY ... TO PROGRAM or the host's files.
 *
 * <p>Each start makes the server agree with the password file (a new password there is the rotation), and
 * moves data directories of earlier versions, which trusted every local connection, to this: their pg_hba.conf
 * is kept as pg_hba.conf.trust-backup, and their database and its objects are given from postgres to qplab.
 */
final class EmbeddedPostgresAuth {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresAuth.class);
    /** The role the controller logs in as. */
    static final String ROLE = "qplab";
    private static final Pattern DATABASE_OWNER = Pattern.compile("qplab_database_owner = \"([^\"]*)\"");

    private final PostgresBinaries binaries;
    private final Path dataDir;
    private final String database;
    private final boolean fsync;

    EmbeddedPostgresAuth(PostgresBinaries binaries, Path dataDir, String database, boolean fsync) {
        this.binaries = binaries;
        this.dataDir = dataDir;
        this.database = database;
        this.fsync = fsync;
    }

    /** The default password file: next to the data directory, named after it (postgres → postgres-password). */
    static Path passwordFileFor(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + "-password");
    }

    /** With the server stopped: pg_hba.conf as below, the roles, and the database owned by qplab. */
    void apply(String password) throws IOException {
        writeHba();
        String owner = setUpRoles(password);
        if (owner == null) {
            log.info("Creating the database {} (owner {})", database, ROLE);
            singleUser("postgres", "CREATE DATABASE " + database + " OWNER " + ROLE);
        } else if (!owner.equals(ROLE)) {
            log.info("Giving the database {} and its objects from {} to the role {} (a data directory of an earlier "
                    + "qplab, which trusted local connections)", database, owner, ROLE);
            singleUser(database, transferOwnership(owner));
        }
    }

    String hba() {
        return """
                # Written by the qplab controller at each start (EmbeddedPostgresAuth): edits here are replaced.
                # Only the role %2$s, with the password in its password file (scram-sha-256), from 127.0.0.1, to %1$s.
                # Everything else (the superuser postgres, other databases, unix sockets) matches no line: refused.
                # TYPE  DATABASE  USER  ADDRESS  METHOD
                host    %1$s    %2$s    127.0.0.1/32    scram-sha-256
                """.formatted(database, ROLE);
    }

    private void writeHba() throws IOException {
        Path hba = dataDir.resolve("pg_hba.conf");
        String wanted = hba();
        String current = Files.exists(hba, LinkOption.NOFOLLOW_LINKS) ? read(hba) : "";
        if (current.equals(wanted)) {
            return;
        }
        boolean trusting = current.lines().map(String::strip)
                .anyMatch(line -> !line.startsWith("#") && line.matches(".*\\strust(\\s.*)?"));
        if (!current.isEmpty()) {
            Path backup = dataDir.resolve(trusting ? "pg_hba.conf.trust-backup"
                    : "pg_hba.conf.replaced-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            if (!Files.exists(backup, LinkOption.NOFOLLOW_LINKS)) {
                write(backup, current, false);
            }
            log.info("Replacing {} ({}the old one is kept as {})", hba,
                    trusting ? "it trusted local connections; " : "", backup.getFileName());
        }
        write(hba, wanted, true);
    }

    /** Reads without following a link: when the controller is root, the data directory is nobody's. */
    private static String read(Path file) throws IOException {
        try (SeekableByteChannel in = Files.newByteChannel(file, java.util.Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(in.size(), 1 << 20));
            while (buffer.hasRemaining() && in.read(buffer) > 0) {
                // until full or at the end
            }
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
        }
    }

    /** A new file (0600, the server's) moved into place: never written through a link someone planted. */
    private void write(Path file, String text, boolean replace) throws IOException {
        Path staging = file.resolveSibling(file.getFileName() + ".qplab-" + ProcessHandle.current().pid());
        Files.deleteIfExists(staging);
        try (SeekableByteChannel out = Files.newByteChannel(staging, EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            out.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        }
        binaries.chownToServer(staging);
        if (replace) {
            Files.move(staging, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } else {
            Files.move(staging, file, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /**
     * qplab: a login with the password (sent as its SCRAM verifier, so the password itself never reaches the
     * server or its log), nothing more; postgres: no password. Returns the owner of the database, null if none.
     */
    private String setUpRoles(String password) throws IOException {
        String verifier = PasswordUtil.encodeScramSha256(password.toCharArray());
        String output = singleUser("postgres", """
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN CREATE ROLE %1$s; END IF;
                END $$""".formatted(ROLE),
                "ALTER ROLE " + ROLE + " WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
                        + " PASSWORD '" + verifier + "'",
                // the benchmarks (bench/) take a checkpoint before they measure; it costs I/O, reads nothing
                "GRANT pg_checkpoint TO " + ROLE,
                "ALTER ROLE postgres WITH PASSWORD NULL",
                "SELECT pg_get_userbyid(datdba)::text AS qplab_database_owner FROM pg_database WHERE datname = '"
                        + database + "'");
        Matcher owner = DATABASE_OWNER.matcher(output);
        return owner.find() ? owner.group(1) : null;
    }

    /** Schemas, tables, views, sequences, routines and types of from's, in this database, become qplab's. */
    private String[] transferOwnership(String from) {
        String user = "n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'";
        return new String[] {"""
                DO $$
                DECLARE
                    o record;
                BEGIN
                    FOR o IN SELECT format('ALTER SCHEMA %%I OWNER TO %2$s', n.nspname) AS ddl FROM pg_namespace n
                             WHERE n.nspowner = '%1$s'::regrole AND %3$s
                    LOOP EXECUTE o.ddl; END LOOP;
                    -- a table takes its indexes and the sequences of its serial and identity columns along
                    FOR o IN SELECT format('ALTER %%s %%s OWNER TO %2$s', CASE c.relkind WHEN 'v' THEN 'VIEW'
                                    WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
                                    c.oid::regclass) AS ddl
                             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                             WHERE c.relowner = '%1$s'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND %3$s
                    LOOP EXECUTE o.ddl; END LOOP;
                    FOR o IN SELECT format('ALTER SEQUENCE %%s OWNER TO %2$s', c.oid::regclass) AS ddl
                             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                             WHERE c.relowner = '%1$s'::regrole AND c.relkind = 'S' AND %3$s
                    LOOP EXECUTE o.ddl; END LOOP;
                    FOR o IN SELECT format('ALTER ROUTINE %%s OWNER TO %2$s', p.oid::regprocedure) AS ddl
                             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                             WHERE p.proowner = '%1$s'::regrole AND %3$s
                    LOOP EXECUTE o.ddl; END LOOP;
                    -- types of their own (row types follow their tables, array types their elements)
                    FOR o IN SELECT format('ALTER %%s %%s OWNER TO %2$s', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
                                    t.oid::regtype) AS ddl
                             FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                             WHERE t.typowner = '%1$s'::regrole AND t.typtype IN ('b', 'c', 'd', 'e', 'r')
                               AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
                               AND NOT EXISTS (SELECT FROM pg_type e WHERE e.typarray = t.oid) AND %3$s
                    LOOP EXECUTE o.ddl; END LOOP;
                END $$""".formatted(from, ROLE, user),
                "ALTER DATABASE " + database + " OWNER TO " + ROLE};
    }

    /**
     * Runs statements in single-user mode (the server must be stopped) as the superuser; the first error
     * stops it (exit_on_error) and fails this. Returns what it printed (query results included).
     */
    private String singleUser(String db, String... statements) throws IOException {
        List<String> command = new ArrayList<>(List.of(binaries.bin("postgres"), "--single", "-j", "-D", dataDir.toString(),
                "-c", "exit_on_error=on", "-c", "log_min_error_statement=panic")); // no statement (verifier) in any log
        if (!fsync) {
            command.addAll(List.of("-c", "fsync=off"));
        }
        command.add(db);
        // -j: a statement ends with a semicolon and an empty line
        PostgresBinaries.Result result = binaries.exec(command, String.join(";\n\n", statements) + ";\n\n", 120);
        if (result.exit() != 0) {
            throw new IOException("setting up the roles of the embedded PostgreSQL in " + dataDir + " failed (postgres "
                    + "--single, exit " + result.exit() + "):\n" + result.output());
        }
        return result.output();
    }
}
