package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresIntegrationTests {

    @Test
    void keepsDataAcrossRestarts() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        var config = new DatabaseProperties.Embedded(dataDir.toString(), 0, "qplab", false);

        try (EmbeddedPostgres first = EmbeddedPostgres.start(config);
             Connection c = DriverManager.getConnection(first.jdbcUrl("postgres"), "postgres", "")) {
            c.createStatement().execute("CREATE TABLE kept (v text)");
            c.createStatement().execute("INSERT INTO kept VALUES ('still here')");
        }
        assertThat(dataDir.resolve("postmaster.pid")).doesNotExist();

        try (EmbeddedPostgres second = EmbeddedPostgres.start(config);
             Connection c = DriverManager.getConnection(second.jdbcUrl("postgres"), "postgres", "");
             ResultSet rs = c.createStatement().executeQuery("SELECT v, version() FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("still here");
            assertThat(rs.getString(2)).startsWith("PostgreSQL 17.");
        }
        assertThat(Files.exists(dataDir.resolve("PG_VERSION"))).isTrue();
    }

    @Test
    void refusesASecondControllerOnTheSameDataDirectoryAndLeavesTheFirstRunning() throws Exception {
        var config = new DatabaseProperties.Embedded(TestDatabase.freshDataDir().toString(), 0, "qplab", false);

        try (EmbeddedPostgres first = EmbeddedPostgres.start(config)) {
            assertThatThrownBy(() -> EmbeddedPostgres.start(config))
                    .isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("another qplab controller is using the embedded PostgreSQL in " + config.dataDir());
            try (Connection c = DriverManager.getConnection(first.jdbcUrl("postgres"), "postgres", "");
                 ResultSet rs = c.createStatement().executeQuery("SELECT 1")) {
                assertThat(rs.next()).as("first server still answers").isTrue();
            }
        }
    }
}
