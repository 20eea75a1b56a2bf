package org.qplab.controller;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.assertj.core.api.Assertions;
import org.qplab.controller.database.TestDatabase;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.ControllerProcess;
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
 * Subclasses share one context (and one database); a subclass that changes properties gets its own
 * context, and with it its own database.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "qplab.agents.token=" + ControllerIntegrationTest.TOKEN,
        // every test's agents and fakes come from 127.0.0.1: the hellos some tests fail on purpose must not throttle
        // another test's enrolment (HostileAgentIntegrationTests sets a limit of its own and reaches it)
        "qplab.agents.failed-hello-limit=1000",
        "qplab.security.admin-password=" + ControllerIntegrationTest.ADMIN_PASSWORD,
        "qplab.database.embedded.port=0",
        "qplab.database.embedded.fsync=false",
        "qplab.schedule.tick=500ms",
        // agents in network namespaces reach the controller through their veth's host side
        "server.address=0.0.0.0",
})
public abstract class ControllerIntegrationTest {

    protected static final ParameterizedTypeReference<Map<String, Object>> JSON_OBJECT = new ParameterizedTypeReference<>() { };
    protected static final ParameterizedTypeReference<List<Map<String, Object>>> JSON_ARRAY = new ParameterizedTypeReference<>() { };

    public static final String TOKEN = "integration-test-token";
    /** The first admin's password (account "admin"). */
    public static final String ADMIN_PASSWORD = "integration-admin-password";
    /** Each context's API tokens (port:account): the tests act as scripts with those tokens would. */
    private static final Map<String, String> TOKENS = new java.util.concurrent.ConcurrentHashMap<>();
    /** Where deploy tests put the controller's SSH key and known_hosts file. */
    public static final Path SSH_DIR = Path.of("target", "ssh-test").toAbsolutePath();

    /**
     * This module's controller as a process of its own (its classes, the test class path; log and token under target/),
     * for tests that kill it or watch it refuse to start: see {@link ControllerProcess#start}.
     */
    public static ControllerProcess startProcess(String name, int port, Path dataDir, int pgPort, List<String> properties)
            throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("qplab.security.admin-password=" + ADMIN_PASSWORD));
        all.addAll(properties);
        return ControllerProcess.start(ControllerProcess.Launch.classes(System.getProperty("java.class.path"),
                QplabApplication.class.getName()), Path.of("target"), name, port, dataDir, pgPort, all);
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        String dataDir = TestDatabase.freshDataDir().toString(); // called once per context
        registry.add("qplab.database.embedded.data-dir", () -> dataDir);
        registry.add("qplab.deploy.private-key", () -> SSH_DIR.resolve("id_ed25519").toString());
        registry.add("qplab.deploy.known-hosts", () -> SSH_DIR.resolve("known_hosts").toString());
    }

    @Value("${local.server.port}")
    protected int port;

    @Autowired
    protected JdbcClient jdbc;

    @Autowired
    private org.qplab.controller.security.ApiTokens apiTokens;
    @Autowired
    private org.qplab.controller.security.Accounts accounts;

    /** An API token of the first admin (made once per context). */
    protected String adminToken() {
        return TOKENS.computeIfAbsent(port + ":admin", k -> apiTokens.issue("admin", "integration tests").token());
    }

    /** An API token of an account with this role (made, with its account, on first use in a context). */
    protected String tokenOf(String role) {
        return TOKENS.computeIfAbsent(port + ":test-" + role, k -> {
            String name = "test-" + role;
            if (accounts.list().stream().noneMatch(a -> a.name().equals(name))) {
                accounts.create(name, "password-of-" + role, role);
            }
            return apiTokens.issue(name, "integration tests").token();
        });
    }

    /** A client with no credentials at all. */
    protected WebTestClient anonymous() {
        return WebTestClient.bindToServer(new org.springframework.http.client.reactive.ReactorClientHttpConnector(
                        reactor.netty.http.client.HttpClient.create(reactor.netty.resources.ConnectionProvider.newConnection())))
                .baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30)).build();
    }

    /**
     * A client on a fresh connection per request: no pooled keep-alive connection that the server may
     * have closed meanwhile is ever reused (a request on one waited out the 30 s response timeout). It sends the
     * admin's API token, as a script would.
     */
    protected WebTestClient http() {
        return anonymous().mutate().defaultHeader("Authorization", "Bearer " + adminToken()).build();
    }

    /** Polls the experiment until it is FINISHED or FAILED; fails with diagnostics after timeout. */
    protected Map<String, Object> awaitExperimentEnd(long id, Duration timeout, Supplier<String> diagnostics)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> experiment = Map.of();
        while (System.nanoTime() < deadline) {
            experiment = http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody();
            if (List.of("FINISHED", "FAILED").contains(experiment.get("status"))) {
                return experiment;
            }
            Thread.sleep(250);
        }
        return Assertions.fail("experiment " + id + " did not end within " + timeout + ": " + experiment + "\n"
                + diagnostics.get());
    }

    /** Waits until every agent of ids is connected (at most 90 s); fails with diagnostics otherwise. */
    protected void awaitAgentsConnected(List<String> ids, Supplier<String> diagnostics) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            long connected = jdbc.sql("SELECT count(*) FROM agent WHERE connected AND id IN (:ids)").param("ids", ids)
                    .query(Long.class).single();
            if (connected == ids.size()) {
                return;
            }
            Thread.sleep(200);
        }
        Assertions.fail("agents " + ids + " did not all register within 90 s\n" + diagnostics.get());
    }

    /** The agents' logs, one after another, for failure messages. */
    protected static String logsOf(List<AgentProcess> agents) {
        StringBuilder all = new StringBuilder();
        for (AgentProcess agent : agents) {
            all.append(agent.log()).append("\n----\n");
        }
        return all.toString();
    }

    protected long count(String table) {
        return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
    }
}
