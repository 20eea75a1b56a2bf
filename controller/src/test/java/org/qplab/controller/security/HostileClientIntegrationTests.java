package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.agent.AgentToken;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

/**
 * The hostile clients of issue 18, replayed against a real controller: nobody without an account changes
 * anything, a web page on another site cannot drive a logged-in browser (CSRF, CORS) or reach the controller
 * under a rebound name (Host), each role does only what it may, tokens are kept as hashes and work until
 * revoked, and every change is in the audit log. Issue 31 adds: every page under a strict Content-Security-Policy,
 * 413 for a body over the limit on every path, and CSRF tokens bound to their session. Whatever is refused stores
 * nothing. (Sessions that follow their account: HostileClientSessionsIntegrationTests; what guessing costs:
 * HostileClientGuessingIntegrationTests.)
 */
class HostileClientIntegrationTests extends ControllerIntegrationTest {

    private static final String QUEUED_FOREVER = """
            name: hostile target
            hosts: {loopback: [nobody-is-here]}
            base: {provider: tcp, iterations: 10, msg_size: 64}
            """;
    private static final String PERFTEST = """
            ---------------------------------------------------------------------------------------
                                RDMA_Write BW Test
             Dual-port       : OFF          Device         : rxe0
            ---------------------------------------------------------------------------------------
             #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
             65536      5000             1100.00            1000.00              0.016000
            ---------------------------------------------------------------------------------------
            """;

    private long target;

    @BeforeEach
    void queuedExperiment() {
        target = ((Number) http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(QUEUED_FOREVER).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody().get("id")).longValue();
    }

    @AfterEach
    void cancelIt() {
        http().post().uri("/api/experiments/{id}/cancel", target).exchange();
    }

    private String status(long experiment) {
        return jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(experiment).query(String.class).single();
    }

    @Test
    void withoutCredentialsNothingIsReadOrChanged() {
        long experiments = count("experiment");
        long hosts = count("host");
        WebTestClient nobody = anonymous();
        nobody.get().uri("/api/experiments").exchange().expectStatus().isUnauthorized()
                .expectBody().jsonPath("$.error").value(e -> assertThat((String) e).contains("Authorization: Bearer"));
        nobody.post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(QUEUED_FOREVER).exchange().expectStatus().isUnauthorized();
        nobody.post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isUnauthorized();
        nobody.post().uri("/api/import/perftest").contentType(MediaType.TEXT_PLAIN).bodyValue(PERFTEST).exchange()
                .expectStatus().isUnauthorized();
        nobody.put().uri("/api/runs/1/baseline").exchange().expectStatus().isUnauthorized();
        nobody.post().uri("/api/hosts?pinHostKey=true").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "evil", "address", "127.0.0.1")).exchange().expectStatus().isUnauthorized();
        nobody.post().uri("/api/hosts/evil/deploy?pinHostKey=true").exchange().expectStatus().isUnauthorized();
        nobody.post().uri("/api/experiments").header("Authorization", "Bearer qplab_not-a-token")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue(QUEUED_FOREVER).exchange()
                .expectStatus().isUnauthorized().expectBody().jsonPath("$.error").isEqualTo("this API token is unknown or revoked");
        // the dashboard itself sends a browser to the login page
        nobody.get().uri("/").exchange().expectStatus().isFound().expectHeader().location("/login");

        assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);
        assertThat(count("host")).isEqualTo(hosts);
        assertThat(status(target)).isEqualTo("QUEUED");
    }

    @Test
    void aPageOnAnotherSiteCannotDriveALoggedInBrowser() {
        BrowserSession browser = BrowserSession.logIn(anonymous(), "admin", ADMIN_PASSWORD);
        long experiments = count("experiment");

        // a cross-site form post carries the session cookie (were it not SameSite) but no CSRF token, and its Origin
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> browser.cookies().forEach(c::add))
                .header("Origin", "http://evil.example").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .bodyValue("x=1").exchange().expectStatus().isForbidden();
        anonymous().post().uri("/api/import/perftest").cookies(c -> browser.cookies().forEach(c::add))
                .header("Origin", "http://evil.example").contentType(MediaType.TEXT_PLAIN).bodyValue(PERFTEST)
                .exchange().expectStatus().isForbidden();
        // even with the token (read by some other hole), another Origin is refused
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> browser.cookies().forEach(c::add))
                .header("X-XSRF-TOKEN", browser.csrf()).header("Origin", "http://evil.example").exchange()
                .expectStatus().isForbidden();
        // the same origin without the CSRF token: refused
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> browser.cookies().forEach(c::add))
                .exchange().expectStatus().isForbidden().expectBody().jsonPath("$.error")
                .value(e -> assertThat((String) e).contains("CSRF"));
        assertThat(status(target)).as("still queued after every refused cancel").isEqualTo("QUEUED");
        assertThat(count("experiment")).as("no import stored").isEqualTo(experiments);

        // the dashboard's own request: same origin, session cookie and the CSRF token it read from its cookie
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> browser.cookies().forEach(c::add))
                .header("X-XSRF-TOKEN", browser.csrf()).header("Origin", "http://127.0.0.1:" + port).exchange()
                .expectStatus().isOk();
        assertThat(status(target)).isEqualTo("CANCELLED");
    }

    @Test
    void aRequestForAnotherHostNameIsRefused() throws Exception {
        long experiments = count("experiment");
        String get = raw("GET /api/experiments HTTP/1.1\r\nHost: rebind.attacker.example\r\nAuthorization: Bearer "
                + adminToken() + "\r\nConnection: close\r\n\r\n");
        assertThat(get).startsWith("HTTP/1.1 400").contains("qplab.security.allowed-hosts").doesNotContain("hostile target");
        String body = QUEUED_FOREVER;
        String post = raw("POST /api/experiments HTTP/1.1\r\nHost: rebind.attacker.example:" + port + "\r\nAuthorization: Bearer "
                + adminToken() + "\r\nContent-Type: application/yaml\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body);
        assertThat(post).startsWith("HTTP/1.1 400");
        assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);
        // the names it answers to
        assertThat(raw("GET /api/experiments/" + target + " HTTP/1.1\r\nHost: localhost:" + port + "\r\nAuthorization: Bearer "
                + adminToken() + "\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200");
    }

    @Test
    void eachRoleDoesOnlyWhatItMay() {
        WebTestClient viewer = as(tokenOf("viewer"));
        WebTestClient operator = as(tokenOf("operator"));
        long experiments = count("experiment");

        viewer.get().uri("/api/experiments/{id}", target).exchange().expectStatus().isOk();
        viewer.post().uri("/api/experiments/validate").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(QUEUED_FOREVER).exchange().expectStatus().isOk();
        viewer.post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml")).bodyValue(QUEUED_FOREVER)
                .exchange().expectStatus().isForbidden().expectBody().jsonPath("$.error")
                .isEqualTo("your role (viewer) may not POST /api/experiments: needs an operator");
        viewer.post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isForbidden();
        viewer.get().uri("/api/users").exchange().expectStatus().isForbidden();
        assertThat(count("experiment")).isEqualTo(experiments);
        assertThat(status(target)).isEqualTo("QUEUED");

        // an operator submits and cancels, but registers no host and may not make the controller trust a host key
        long hosts = count("host");
        operator.post().uri("/api/hosts?pinHostKey=true").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "evil", "address", "127.0.0.1")).exchange().expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").isEqualTo("your role (operator) may not POST /api/hosts: needs an admin");
        operator.post().uri("/api/hosts/evil/deploy?pinHostKey=true").exchange().expectStatus().isForbidden();
        operator.get().uri("/api/audit").exchange().expectStatus().isForbidden();
        operator.post().uri("/api/users").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "mallory", "password", "long enough", "role", "admin")).exchange()
                .expectStatus().isForbidden();
        assertThat(count("host")).isEqualTo(hosts);
        assertThat(jdbc.sql("SELECT count(*) FROM account WHERE name = 'mallory'").query(Long.class).single()).isZero();
        operator.post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isOk();
        assertThat(status(target)).isEqualTo("CANCELLED");
    }

    @Test
    void tokensAreShownOnceKeptAsHashesAndWorkUntilRevoked() {
        Map<String, Object> made = http().post().uri("/api/tokens").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "ci script")).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
        String token = (String) made.get("token");
        assertThat(token).startsWith("qplab_").hasSizeGreaterThan(40);
        String listed = http().get().uri("/api/tokens").exchange().expectStatus().isOk().expectBody(String.class)
                .returnResult().getResponseBody();
        assertThat(listed).contains("ci script").doesNotContain(token);
        byte[] stored = jdbc.sql("SELECT token_sha256 FROM api_token WHERE id = ?").param(((Number) made.get("id")).longValue())
                .query(byte[].class).single();
        assertThat(stored).as("only its SHA-256 is stored").isEqualTo(AgentToken.sha256(token));
        assertThat(jdbc.sql("SELECT password_hash FROM account WHERE name = 'admin'").query(String.class).single())
                .as("passwords with bcrypt").startsWith("{bcrypt}$2").doesNotContain(ADMIN_PASSWORD);

        as(token).get().uri("/api/me").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.name").isEqualTo("admin").jsonPath("$.role").isEqualTo("admin");
        http().delete().uri("/api/tokens/{id}", made.get("id")).exchange().expectStatus().isNoContent();
        as(token).get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        // another account's token cannot be revoked by id
        as(tokenOf("viewer")).delete().uri("/api/tokens/{id}", made.get("id")).exchange().expectStatus().isNotFound();
    }

    @Test
    void everyChangeIsInTheAuditLog() {
        as(tokenOf("viewer")).post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isForbidden();
        http().post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isOk();
        List<Map<String, Object>> events = Await.eventually(() -> http().get().uri("/api/audit?limit=50").exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody(), list -> list.stream()
                .anyMatch(e -> ("/api/experiments/" + target + "/cancel").equals(e.get("target")) && "admin".equals(e.get("actor"))));
        assertThat(events).anySatisfy(e -> assertThat(e).containsEntry("actor", "admin")
                .containsEntry("action", "POST /api/experiments/" + target + "/cancel").containsEntry("status", 200));
        assertThat(events).anySatisfy(e -> assertThat(e).containsEntry("actor", "test-viewer")
                .containsEntry("action", "POST /api/experiments/" + target + "/cancel").containsEntry("status", 403));
        assertThat(events).anySatisfy(e -> assertThat(e).containsEntry("actor", "admin")
                .containsEntry("action", "POST /api/experiments").containsEntry("status", 201));
    }

    @Test
    void everyPageCarriesAStrictContentSecurityPolicyAndHasNoInlineScriptOrStyle() {
        for (String path : List.of("/login", "/", "/js/app.js", "/api/me", "/css/app.css")) {
            var headers = http().get().uri(path).exchange().expectStatus().isOk().returnResult(String.class)
                    .getResponseHeaders();
            assertThat(headers.getFirst("Content-Security-Policy")).as(path).contains("default-src 'self'",
                    "script-src 'self'", "style-src 'self'", "object-src 'none'", "frame-ancestors 'none'")
                    .doesNotContain("unsafe-inline", "unsafe-eval");
            assertThat(headers.getFirst("X-Frame-Options")).as(path).isEqualTo("DENY");
            assertThat(headers.getFirst("X-Content-Type-Options")).as(path).isEqualTo("nosniff");
        }
        for (String page : List.of("/login", "/")) {
            String html = http().get().uri(page).exchange().expectBody(String.class).returnResult().getResponseBody();
            assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find()).as("%s: an inline script", page)
                    .isFalse();
            assertThat(html).as(page).doesNotContain("<style", "style=\"", "javascript:")
                    .doesNotContainPattern("\\son[a-z]+=");
        }
    }

    @Test
    void aBodyOverTheLimitIs413OnEveryPathTheLoginFormIncluded() {
        byte[] big = new byte[5 * 1024 * 1024];
        java.util.Arrays.fill(big, (byte) 'a');
        // the login form, which Spring Security reads before any controller (it answered 500)
        anonymous().post().uri("/login").contentType(MediaType.APPLICATION_FORM_URLENCODED).bodyValue(big).exchange()
                .expectStatus().isEqualTo(413).expectBody().jsonPath("$.error")
                .value(e -> assertThat((String) e).contains("larger than 4194304 bytes"));
        // without a Content-Length (chunked), with the login page's CSRF cookie (so that the form is read for its
        // token): refused where it crosses the limit
        String csrf = anonymous().get().uri("/login").exchange().expectBody().returnResult().getResponseCookies()
                .getFirst("XSRF-TOKEN").getValue();
        Flux<DataBuffer> chunks = Flux.range(0, 80).map(i -> DefaultDataBufferFactory.sharedInstance.wrap(new byte[64 * 1024]));
        anonymous().post().uri("/login").cookie("XSRF-TOKEN", csrf).contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .body(chunks, DataBuffer.class).exchange().expectStatus().isEqualTo(413);
        // an API change with a valid token, and a path nothing answers
        http().post().uri("/api/experiments/{id}/cancel", target).contentType(MediaType.APPLICATION_JSON).bodyValue(big)
                .exchange().expectStatus().isEqualTo(413);
        anonymous().post().uri("/no/such/path").contentType(MediaType.TEXT_PLAIN).bodyValue(big).exchange()
                .expectStatus().isEqualTo(413);
        assertThat(status(target)).isEqualTo("QUEUED");
    }

    @Test
    void aCsrfTokenOfAnotherSessionIsRefused() {
        BrowserSession mine = BrowserSession.logIn(anonymous(), "admin", ADMIN_PASSWORD);
        BrowserSession other = BrowserSession.logIn(anonymous(), "admin", ADMIN_PASSWORD); // the same account, even
        assertThat(other.csrf()).isNotEqualTo(mine.csrf());
        // another session's token, in the header and (set by another site, say) in the cookie: refused
        Map<String, String> tossed = new java.util.HashMap<>(mine.cookies());
        tossed.put("XSRF-TOKEN", other.csrf());
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> tossed.forEach(c::add))
                .header("X-XSRF-TOKEN", other.csrf()).exchange().expectStatus().isForbidden().expectBody()
                .jsonPath("$.error").value(e -> assertThat((String) e).contains("CSRF"));
        // a token made up by the attacker, in both places (the double submit a cookie-only token would accept)
        tossed.put("XSRF-TOKEN", "made-up");
        anonymous().post().uri("/api/experiments/{id}/cancel", target).cookies(c -> tossed.forEach(c::add))
                .header("X-XSRF-TOKEN", "made-up").exchange().expectStatus().isForbidden();
        assertThat(status(target)).as("still queued after every refused cancel").isEqualTo("QUEUED");
        // the session's own token
        mine.on(anonymous()).post().uri("/api/experiments/{id}/cancel", target).exchange().expectStatus().isOk();
        assertThat(status(target)).isEqualTo("CANCELLED");
    }

    private WebTestClient as(String token) {
        return anonymous().mutate().defaultHeader("Authorization", "Bearer " + token).build();
    }

    /** A request written as bytes on a socket (a Host header no HTTP client library lets one choose). */
    private String raw(String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Polls until the condition holds for what get returns (the audit log is written just after the answer). */
    private static final class Await {
        static <T> T eventually(java.util.function.Supplier<T> get, java.util.function.Predicate<T> condition) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            T value = get.get();
            while (!condition.test(value) && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                value = get.get();
            }
            return value;
        }
    }
}
