package org.qplab.controller.database;

import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootExceptionReporter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * A start that fails because of the database says so in one line (which file or setting, and what to do)
 * instead of a stack trace: a {@link DatabaseRefusal}, or a server that refused the login (SQLSTATE class 28).
 * Registered in META-INF/spring.factories; a failure it reports is not logged again by Spring Boot.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class DatabaseRefusalReporter implements SpringBootExceptionReporter {

    private static final Logger log = LoggerFactory.getLogger(DatabaseRefusalReporter.class);
    private static final int MAX_CAUSES = 50;

    private final ConfigurableApplicationContext context;

    public DatabaseRefusalReporter(ConfigurableApplicationContext context) {
        this.context = context;
    }

    @Override
    public boolean reportException(Throwable failure) {
        String url = context == null ? "" : context.getEnvironment().getProperty("spring.datasource.url", "");
        String line = oneLine(failure, url);
        if (line == null) {
            return false;
        }
        log.error("{}", line);
        return true;
    }

    /** The line for failure, or null when the database is not what failed. */
    static String oneLine(Throwable failure, String datasourceUrl) {
        Throwable t = failure;
        for (int i = 0; t != null && i < MAX_CAUSES; t = t.getCause(), i++) {
            if (t instanceof DatabaseRefusal refusal) {
                return "qplab cannot start: " + refusal.getMessage();
            }
        }
        t = failure;
        for (int i = 0; t != null && i < MAX_CAUSES; t = t.getCause(), i++) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("28")) {
                String reason = sql.getMessage() == null ? sql.getSQLState() : sql.getMessage().lines().findFirst().orElse("").strip();
                if (datasourceUrl.isBlank()) {
                    return "qplab cannot start: the embedded PostgreSQL refused the controller (" + reason + "): restart it "
                            + "(each start sets the role's password from its password file)";
                }
                return "qplab cannot start: the database " + datasourceUrl.replaceFirst("\\?.*", "") + " refused the login ("
                        + reason + "): check spring.datasource.username and spring.datasource.password, and that the "
                        + "server's pg_hba.conf lets that role in with scram-sha-256 (README, \"The database\")";
            }
        }
        return null;
    }
}
