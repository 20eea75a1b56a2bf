package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/** A data directory of an earlier qplab (initdb -A trust, everything owned by the superuser) after a start of this one. */
class EmbeddedPostgresMigrationIntegrationTests {

    @Test
    void givesADataDirectoryThatTrustedLocalConnectionsAPasswordAndKeepsItsRows() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        int migrations = makeTrustingDataDir(dataDir);

        try (EmbeddedPostgres pg = EmbeddedPostgres.start(TestDatabase.config(dataDir))) {
            String url = pg.jdbcUrl("qplab");
            assertThat(EmbeddedPostgresIntegrationTests.refusal(url, "postgres", "")).as("the superuser, as any local user could before")
                    .startsWith("28000 ").contains("no pg_hba.conf entry");
            try (Connection c = EmbeddedPostgresIntegrationTests.connect(pg)) {
                assertThat(strings(c, "SELECT name || ': ' || status FROM experiment ORDER BY id"))
                        .containsExactly("made before scram: FINISHED", "made before scram too: QUEUED");
                assertThat(strings(c, "SELECT v FROM kept ORDER BY id")).containsExactly("one", "two");
                assertThat(strings(c, "SELECT count(*) FROM flyway_schema_history WHERE success")).containsExactly(String.valueOf(migrations));
                assertThat(strings(c, """
                        SELECT kind || ' ' || name || ' of ' || owner FROM (
                            SELECT 'relation' AS kind, c.relname AS name, pg_get_userbyid(c.relowner) AS owner
                            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
                            UNION ALL SELECT 'routine', p.proname, pg_get_userbyid(p.proowner)
                            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
                            UNION ALL SELECT 'type', t.typname, pg_get_userbyid(t.typowner)
                            FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'
                            UNION ALL SELECT 'database', datname, pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'qplab'
                        ) o WHERE owner <> 'qplab'""")).as("everything of the database now qplab's").isEmpty();
                // what the controller does with it next: write, and change the schema (a later migration)
                c.setAutoCommit(false);
                c.createStatement().execute("INSERT INTO kept (v) VALUES ('three')");
                c.createStatement().execute("ALTER TABLE experiment ADD COLUMN later_migration TEXT");
                c.createStatement().execute("SELECT qplab_cycle_bucket(1000)");
                c.rollback();
            }
            Flyway.configure().dataSource(url, pg.username(), pg.password()).locations("classpath:db/migration").load().migrate();
        }
        assertThat(Files.readString(dataDir.resolve("pg_hba.conf.trust-backup"))).as("the old pg_hba.conf, kept")
                .contains("127.0.0.1/32            trust");
        assertThat(Files.readAllLines(dataDir.resolve("pg_hba.conf"))).noneMatch(l -> l.contains("trust") && !l.startsWith("#"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve("pg_hba.conf")))).isEqualTo("rw-------");
        assertThat(Files.getAttribute(dataDir.resolve("pg_hba.conf"), "unix:uid"))
                .isEqualTo(Files.getAttribute(dataDir.resolve("PG_VERSION"), "unix:uid"));

        try (EmbeddedPostgres again = EmbeddedPostgres.start(TestDatabase.config(dataDir));
             Connection c = EmbeddedPostgresIntegrationTests.connect(again)) {
            assertThat(strings(c, "SELECT v FROM kept ORDER BY id")).as("a second start changes nothing").containsExactly("one", "two");
        }
        try (var files = Files.list(dataDir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("pg_hba.conf")))
                    .containsExactlyInAnyOrder("pg_hba.conf", "pg_hba.conf.trust-backup");
        }
    }

    /** As qplab made them until now: initdb -A trust, the schema migrated and rows written as postgres. */
    private static int makeTrustingDataDir(Path dataDir) throws IOException, SQLException {
        PostgresBinaries binaries = PostgresBinaries.forThisUser();
        binaries.unpack();
        Files.createDirectories(dataDir);
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwx------"));
        binaries.chownToServer(dataDir);
        run(binaries, binaries.bin("initdb"), "-D", dataDir.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C", "--no-instructions");
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        run(binaries, binaries.bin("pg_ctl"), "-D", dataDir.toString(), "-o", "-c listen_addresses=127.0.0.1 -p " + port
                + " -c unix_socket_directories=" + dataDir + " -c fsync=off", "-l", dataDir.resolve("postgres.log").toString(),
                "-w", "-t", "60", "start");
        try {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "")) {
                c.createStatement().execute("CREATE DATABASE qplab");
            }
            String url = "jdbc:postgresql://127.0.0.1:" + port + "/qplab";
            int applied = Flyway.configure().dataSource(url, "postgres", "").locations("classpath:db/migration").load()
                    .migrate().migrationsExecuted;
            try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
                c.createStatement().execute("""
                        INSERT INTO experiment (name, matrix, status) VALUES
                            ('made before scram', '{}', 'FINISHED'), ('made before scram too', '{}', 'QUEUED');
                        CREATE TABLE kept (id SERIAL PRIMARY KEY, v TEXT);
                        INSERT INTO kept (v) VALUES ('one'), ('two')""");
            }
            return applied;
        } finally {
            run(binaries, binaries.bin("pg_ctl"), "-D", dataDir.toString(), "-m", "fast", "-w", "stop");
        }
    }

    private static void run(PostgresBinaries binaries, String... command) throws IOException {
        PostgresBinaries.Result result = binaries.exec(List.of(command), null, 120);
        assertThat(result.exit()).as(String.join(" ", command) + "\n" + result.output()).isZero();
    }

    private static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
