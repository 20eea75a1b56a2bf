package org.qplab.controller.database;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The default database: an embedded PostgreSQL, reached as the role qplab with the password from its file.
 * Setting spring.datasource.url switches it off and Spring Boot's own DataSource takes the external server
 * (see docker-compose.yml).
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
    DataSource dataSource(EmbeddedPostgres postgres) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl(postgres.database()));
        config.setUsername(postgres.username());
        config.setPassword(postgres.password());
        config.setMaximumPoolSize(10);
        config.setPoolName("qplab-embedded");
        return new HikariDataSource(config);
    }
}
