package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class DatabaseRefusalReporterTests {

    @Test
    void saysInOneLineThatAnExternalServerRefusedTheLoginWithoutItsQuery() {
        var refused = new PSQLException("FATAL: password authentication failed for user \"qplab\"", PSQLState.INVALID_PASSWORD);
        var failure = new IllegalStateException("Failed to initialize pool", new RuntimeException("wrapped", refused));

        assertThat(DatabaseRefusalReporter.oneLine(failure, "jdbc:postgresql://db.lab:5432/qplab?password=secret"))
                .isEqualTo("qplab cannot start: the database jdbc:postgresql://db.lab:5432/qplab refused the login (FATAL: "
                        + "password authentication failed for user \"qplab\"): check spring.datasource.username and "
                        + "spring.datasource.password, and that the server's pg_hba.conf lets that role in with "
                        + "scram-sha-256 (README, \"The database\")");
    }

    @Test
    void prefersTheRefusalsOwnLineAndLeavesOtherFailuresToSpringBoot() {
        var refusal = new DatabaseRefusal("the embedded PostgreSQL's password file /x is open to other users (mode 0644):\nchmod 600 /x");

        assertThat(DatabaseRefusalReporter.oneLine(new IllegalStateException("bean", refusal), ""))
                .isEqualTo("qplab cannot start: the embedded PostgreSQL's password file /x is open to other users (mode 0644): "
                        + "chmod 600 /x");
        assertThat(DatabaseRefusalReporter.oneLine(new IllegalStateException("something else"), "")).isNull();
        assertThat(new DatabaseRefusalReporter(null).reportException(new IllegalStateException("something else"))).isFalse();
    }
}
