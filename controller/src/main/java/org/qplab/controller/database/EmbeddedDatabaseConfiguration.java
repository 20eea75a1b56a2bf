package org.qplab.controller.database;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The default database: an embedded PostgreSQL. Setting spring.datasource.url switches it off and
 * Spring Boot's own DataSource takes the external server (see docker-compose.yml).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DatabaseProperties.class)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
class EmbeddedDatabaseConfiguration {

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres(DatabaseProperties properties) throws IOException {
        return EmbeddedPostgres.start(properties.embedded());
    }

    @Bean
    DataSource dataSource(EmbeddedPostgres postgres, DatabaseProperties properties) throws SQLException {
        String database = properties.embedded().database();
        createDatabaseIfMissing(postgres, database);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl(database));
        config.setUsername("postgres");
        config.setMaximumPoolSize(10);
        config.setPoolName("qplab-embedded");
        return new HikariDataSource(config);
    }

    private static void createDatabaseIfMissing(EmbeddedPostgres postgres, String database) throws SQLException {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("qplab.database.embedded.database must be a plain lower-case name, got " + database);
        }
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", "");
             var exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, database);
            if (!exists.executeQuery().next()) {
                try (var create = c.createStatement()) {
                    create.execute("CREATE DATABASE " + database);
                }
            }
        }
    }
}
