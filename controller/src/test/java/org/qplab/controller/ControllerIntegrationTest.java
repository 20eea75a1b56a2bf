package org.qplab.controller;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.qplab.controller.database.TestDatabase;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A real controller on a random port with its embedded PostgreSQL in a fresh data directory.
 * Subclasses share one context (and one database).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "qplab.agents.token=" + ControllerIntegrationTest.TOKEN,
        "qplab.database.embedded.port=0",
        "qplab.database.embedded.fsync=false",
        "qplab.schedule.tick=500ms",
})
public abstract class ControllerIntegrationTest {

    protected static final ParameterizedTypeReference<Map<String, Object>> JSON_OBJECT = new ParameterizedTypeReference<>() { };
    protected static final ParameterizedTypeReference<List<Map<String, Object>>> JSON_ARRAY = new ParameterizedTypeReference<>() { };

    public static final String TOKEN = "integration-test-token";
    private static final Path DATA_DIR = TestDatabase.freshDataDir();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("qplab.database.embedded.data-dir", DATA_DIR::toString);
    }

    @Value("${local.server.port}")
    protected int port;

    @Autowired
    protected JdbcClient jdbc;

    protected WebTestClient http() {
        return WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30)).build();
    }

    protected long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }
}
