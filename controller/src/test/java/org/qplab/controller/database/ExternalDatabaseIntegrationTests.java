package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * spring.datasource.url set: the controller uses that server, migrates it, and starts no embedded one. The
 * server is what README asks of an external PostgreSQL: a role with a password (scram-sha-256) that owns the
 * database and is not a superuser.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = "qplab.agents.token=external-db-test")
@DirtiesContext
class ExternalDatabaseIntegrationTests {

    private static EmbeddedPostgres external;

    @DynamicPropertySource
    static void externalServer(DynamicPropertyRegistry registry) {
        try {
            external = EmbeddedPostgres.start(TestDatabase.config(TestDatabase.freshDataDir()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        registry.add("spring.datasource.url", () -> external.jdbcUrl(external.database()));
        registry.add("spring.datasource.username", external::username);
        registry.add("spring.datasource.password", external::password);
    }

    @AfterAll
    static void stopExternalServer() {
        external.close();
    }

    @Autowired
    private ApplicationContext context;

    @Autowired
    private JdbcClient jdbc;

    @Test
    void usesTheConfiguredServerAndMigratesItsSchema() throws IOException {
        assertThat(context.getBeansOfType(EmbeddedPostgres.class)).isEmpty();
        assertThat(jdbc.sql("SELECT current_setting('port')").query(String.class).single())
                .isEqualTo(String.valueOf(external.port()));
        int migrations = new PathMatchingResourcePatternResolver().getResources("classpath*:db/migration/V*.sql").length;
        assertThat(migrations).isPositive();
        assertThat(jdbc.sql("SELECT count(*) FROM flyway_schema_history WHERE success").query(Integer.class).single())
                .as("every migration in db/migration applied").isEqualTo(migrations);
        assertThat(jdbc.sql("SELECT count(*) FROM experiment").query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").query(Boolean.class).single())
                .as("migrated by a role that is not a superuser").isFalse();
    }
}
