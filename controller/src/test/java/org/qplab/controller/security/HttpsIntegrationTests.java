package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The controller on HTTPS through a Spring Boot SSL bundle, with a self-signed certificate made the way the README
 * says (openssl): browsers and scripts that trust it are served, plain HTTP is not, the session and CSRF cookies are
 * Secure, and an agent reaches /agent over wss:// with --ca-file, while one without it is refused in plain words.
 */
class HttpsIntegrationTests extends ControllerIntegrationTest {

    private static final Path TLS = Path.of("target", "https-test").toAbsolutePath();
    private static final Path CERTIFICATE = TLS.resolve("controller.pem");
    private static final Path PRIVATE_KEY = TLS.resolve("controller-key.pem");

    @DynamicPropertySource
    static void https(DynamicPropertyRegistry registry) {
        selfSignedCertificateFor127001();
        registry.add("spring.ssl.bundle.pem.qplab.keystore.certificate", CERTIFICATE::toString);
        registry.add("spring.ssl.bundle.pem.qplab.keystore.private-key", PRIVATE_KEY::toString);
        registry.add("server.ssl.bundle", () -> "qplab");
    }

    /** Every request of this class (and of the base class's helpers) goes over HTTPS, trusting the certificate. */
    @Override
    protected WebTestClient anonymous() {
        try {
            var tls = SslContextBuilder.forClient().trustManager(CERTIFICATE.toFile()).build();
            return WebTestClient.bindToServer(new ReactorClientHttpConnector(reactor.netty.http.client.HttpClient
                            .create(ConnectionProvider.newConnection()).secure(spec -> spec.sslContext(tls))))
                    .baseUrl("https://127.0.0.1:" + port).responseTimeout(Duration.ofSeconds(30)).build();
        } catch (SSLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void servesHttpsToWhoTrustsTheCertificateAndNotPlainHttp() {
        anonymous().get().uri("/actuator/health").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.status").isEqualTo("UP");
        http().get().uri("/api/experiments").exchange().expectStatus().isOk().expectBody(JSON_ARRAY);
        anonymous().get().uri("/api/experiments").exchange().expectStatus().isUnauthorized();

        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()))
                .as("plain HTTP on the HTTPS port gets no answer").isInstanceOf(IOException.class);
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("https://127.0.0.1:" + port + "/actuator/health")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()))
                .as("a client that does not trust the self-signed certificate refuses it").isInstanceOf(SSLException.class);
    }

    @Test
    void theSessionAndCsrfCookiesAreSecure() {
        BrowserSession browser = BrowserSession.logIn(anonymous(), "admin", ADMIN_PASSWORD);
        assertThat(browser.secure()).as("cookies a browser sends only over HTTPS").contains("SESSION", "XSRF-TOKEN");
        anonymous().get().uri("/api/me").cookies(c -> browser.cookies().forEach(c::add)).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.name").isEqualTo("admin");
    }

    @Test
    void anAgentWithTheCaFileRunsAnExperimentOverWss() throws Exception {
        String url = "wss://127.0.0.1:" + port + "/agent";
        try (AgentProcess agent = AgentProcess.start(url, "tls-agent", TOKEN, List.of("--ca-file", CERTIFICATE.toString()))) {
            Await.until("tls-agent is registered over wss://", Duration.ofSeconds(60),
                    () -> agent.log().contains("registered with " + url + " as tls-agent"), agent::log);
            assertThat(jdbc.sql("SELECT connected FROM agent WHERE id = 'tls-agent'").query(Boolean.class).single())
                    .as("its row in the agent table").isTrue();

            long id = ((Number) http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"name\":\"over wss\",\"base\":{\"provider\":\"tcp\",\"iterations\":200},"
                            + "\"dimensions\":{\"msg_size\":[64]}}")
                    .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                    .get("id")).longValue();
            Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(2), agent::log);
            assertThat(ended).as(agent.log()).containsEntry("status", "FINISHED").containsEntry("runsDone", 1)
                    .containsEntry("runsFailed", 0);
            assertThat(jdbc.sql("SELECT agent_id FROM run WHERE experiment_id = ?").param(id).query(String.class).single())
                    .isEqualTo("tls-agent");
        }
    }

    @Test
    void anAgentWithoutTheCaFileIsRefusedSayingWhy() throws Exception {
        String url = "wss://127.0.0.1:" + port + "/agent";
        try (AgentProcess agent = AgentProcess.start(url, "no-ca-agent", TOKEN, List.of())) {
            Await.until("the agent says why it cannot connect", Duration.ofSeconds(60),
                    () -> agent.log().contains("presented a certificate this agent does not trust"), agent::log);
            assertThat(agent.log()).contains("the controller at " + url + " presented a certificate this agent does not "
                    + "trust (", "pass --ca-file FILE (env QPLAB_CA_FILE) with the controller's certificate or the CA "
                    + "that signed it; retrying in ");
            assertThat(agent.process().isAlive()).as("it keeps trying: the certificate may be fixed").isTrue();
            assertThat(jdbc.sql("SELECT count(*) FROM agent WHERE id = 'no-ca-agent'").query(Long.class).single())
                    .as("never registered").isZero();
        }
    }

    /** As the README's HTTPS section makes it, for the address the tests connect to. */
    private static void selfSignedCertificateFor127001() {
        try {
            Files.createDirectories(TLS);
            Files.deleteIfExists(CERTIFICATE);
            Files.deleteIfExists(PRIVATE_KEY);
            Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=qplab test",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", PRIVATE_KEY.toString(),
                    "-out", CERTIFICATE.toString()).redirectErrorStream(true).start();
            String out = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IllegalStateException("openssl could not make the test certificate (Debian: openssl): " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("openssl is needed to make the test certificate (Debian: openssl)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
