package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresIntegrationTests {

    @Test
    void keepsDataAcrossRestarts() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        var config = TestDatabase.config(dataDir);

        try (EmbeddedPostgres first = EmbeddedPostgres.start(config); Connection c = connect(first)) {
            c.createStatement().execute("CREATE TABLE kept (v text)");
            c.createStatement().execute("INSERT INTO kept VALUES ('still here')");
        }
        assertThat(dataDir.resolve("postmaster.pid")).doesNotExist();

        try (EmbeddedPostgres second = EmbeddedPostgres.start(config); Connection c = connect(second);
             ResultSet rs = c.createStatement().executeQuery("SELECT v, version() FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("still here");
            assertThat(rs.getString(2)).startsWith("PostgreSQL 17.");
        }
        assertThat(Files.exists(dataDir.resolve("PG_VERSION"))).isTrue();
    }

    @Test
    void refusesASecondControllerOnTheSameDataDirectoryAndLeavesTheFirstRunning() throws Exception {
        var config = TestDatabase.config(TestDatabase.freshDataDir());

        try (EmbeddedPostgres first = EmbeddedPostgres.start(config)) {
            assertThatThrownBy(() -> EmbeddedPostgres.start(config))
                    .isInstanceOf(DatabaseRefusal.class)
                    .hasMessageContaining("another qplab controller is using the embedded PostgreSQL in " + config.dataDir());
            try (Connection c = connect(first); ResultSet rs = c.createStatement().executeQuery("SELECT 1")) {
                assertThat(rs.next()).as("first server still answers").isTrue();
            }
        }
    }

    @Test
    void refusesAConfiguredPortAnotherProcessListensOnNamingTheSettingAndStartsOnAFreePortWithoutOne() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            var configured = new DatabaseProperties.Embedded(dataDir.toString(), port, "qplab", false, null);

            assertThatThrownBy(() -> EmbeddedPostgres.start(configured))
                    .isInstanceOf(DatabaseRefusal.class)
                    .hasMessage("port " + port + " on 127.0.0.1 (qplab.database.embedded.port) is in use by another process: "
                            + "stop it, or set qplab.database.embedded.port to another port, or to 0 (the default) for a "
                            + "free one at each start");

            // an older data directory may name a port of its own; the one on the command line wins
            Files.writeString(dataDir.resolve("postgresql.conf"), "\nport = " + port + "\n", StandardOpenOption.APPEND);
            try (EmbeddedPostgres pg = EmbeddedPostgres.start(TestDatabase.config(dataDir)); Connection c = connect(pg);
                 ResultSet rs = c.createStatement().executeQuery("SELECT current_setting('port')::int")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("the port the server listens on").isEqualTo(pg.port()).isNotEqualTo(port);
            }
        }
    }

    @Test
    void letsInOnlyQplabWithThePasswordFromAFileOnlyTheControllersUserMayRead() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        try (EmbeddedPostgres pg = EmbeddedPostgres.start(TestDatabase.config(dataDir))) {
            Path file = dataDir.resolveSibling("postgres-password");
            assertThat(pg.passwordFile()).isEqualTo(file);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(OsUser.uid());
            assertThat(Files.readString(file).strip()).isEqualTo(pg.password()).hasSizeGreaterThanOrEqualTo(40);

            String url = pg.jdbcUrl("qplab");
            assertThat(refusal(url, "postgres", "")).startsWith("28000 ").contains("no pg_hba.conf entry");
            assertThat(refusal(url, "postgres", pg.password())).as("the superuser, even with qplab's password")
                    .startsWith("28000 ").contains("no pg_hba.conf entry");
            assertThat(refusal(pg.jdbcUrl("postgres"), "qplab", pg.password())).as("another database")
                    .startsWith("28000 ").contains("no pg_hba.conf entry");
            assertThat(refusal(url, "qplab", "")).as("the server asks for the password")
                    .startsWith("08004 The server requested SCRAM-based authentication");
            assertThat(refusal(url, "qplab", pg.password() + "x")).startsWith("28P01 ")
                    .contains("password authentication failed for user \"qplab\"");

            try (Connection c = connect(pg); ResultSet rs = c.createStatement().executeQuery("""
                    SELECT current_user, rolsuper, rolcreaterole, rolcreatedb,
                           (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database())
                    FROM pg_roles WHERE rolname = current_user""")) {
                assertThat(rs.next()).isTrue();
                assertThat(List.of(rs.getString(1), rs.getBoolean(2), rs.getBoolean(3), rs.getBoolean(4), rs.getString(5)))
                        .as("user, superuser, createrole, createdb, the database's owner")
                        .containsExactly("qplab", false, false, false, "qplab");
            }
            try (var sockets = Files.list(dataDir)) {
                assertThat(sockets.map(p -> p.getFileName().toString())).as("no unix socket").noneMatch(n -> n.startsWith(".s.PGSQL"));
            }
            assertThat(Files.readAllLines(dataDir.resolve("pg_hba.conf")).stream().filter(l -> !l.startsWith("#")))
                    .containsExactly("host    qplab    qplab    127.0.0.1/32    scram-sha-256");
            try (var files = Files.list(dataDir)) {
                assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("pg_hba")))
                        .as("a new data directory: nothing to keep").containsExactly("pg_hba.conf");
            }
        }
    }

    @Test
    void takesANewPasswordWrittenIntoItsFileAtTheNextStart() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        var config = TestDatabase.config(dataDir);
        String old;
        try (EmbeddedPostgres pg = EmbeddedPostgres.start(config)) {
            old = pg.password();
        }
        Path file = dataDir.resolveSibling("postgres-password");
        Files.writeString(file, "a-new-password-of-24-chars\n");

        try (EmbeddedPostgres pg = EmbeddedPostgres.start(config)) {
            assertThat(pg.password()).isEqualTo("a-new-password-of-24-chars");
            assertThat(refusal(pg.jdbcUrl("qplab"), "qplab", old)).startsWith("28P01 ");
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl("qplab"), "qplab", "a-new-password-of-24-chars")) {
                assertThat(c.isValid(5)).isTrue();
            }
        }
        Files.delete(file);
        try (EmbeddedPostgres pg = EmbeddedPostgres.start(config); Connection c = connect(pg)) {
            assertThat(pg.password()).as("a deleted file: a new password").isNotEqualTo("a-new-password-of-24-chars");
            assertThat(Files.readString(file).strip()).isEqualTo(pg.password());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        }
    }

    @Test
    void refusesToStartWithAPasswordFileOthersMayReadSayingWhichAndWhatToDo() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        Path file = dataDir.resolveSibling("postgres-password");
        Files.writeString(file, "a-password-others-may-read\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> EmbeddedPostgres.start(TestDatabase.config(dataDir)))
                .isInstanceOf(DatabaseRefusal.class)
                .hasMessage("the embedded PostgreSQL's password file " + file + " is open to other users (mode 0644): chmod 600 "
                        + file + ", and change the password if others may have read it (README, \"The database\")");
        assertThat(dataDir.resolve("PG_VERSION")).as("nothing made before the refusal").doesNotExist();

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(file, "short\n");
        assertThatThrownBy(() -> EmbeddedPostgres.start(TestDatabase.config(dataDir)))
                .isInstanceOf(DatabaseRefusal.class)
                .hasMessageStartingWith("the embedded PostgreSQL's password file " + file + " does not hold a password of 16");
    }

    @Test
    void refusesAPasswordFileOfAnotherUser() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(OsUser.isRoot(), "giving a file to another user needs root");
        Path dataDir = TestDatabase.freshDataDir();
        Path file = dataDir.resolveSibling("postgres-password");
        Files.writeString(file, "a-password-someone-else-wrote\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.setAttribute(file, "unix:uid", PostgresBinaries.NOBODY);

        assertThatThrownBy(() -> EmbeddedPostgres.start(TestDatabase.config(dataDir)))
                .isInstanceOf(DatabaseRefusal.class)
                .hasMessageContaining(file + " belongs to uid 65534, not to uid 0 that runs the controller: chown 0 " + file);
    }

    static Connection connect(EmbeddedPostgres pg) throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(pg.database()), pg.username(), pg.password());
    }

    /** "SQLSTATE message" of the server's refusal; fails the test if the login succeeds. */
    static String refusal(String url, String user, String password) {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            throw new AssertionError(user + " got in to " + url);
        } catch (SQLException e) {
            return e.getSQLState() + " " + e.getMessage();
        }
    }
}
