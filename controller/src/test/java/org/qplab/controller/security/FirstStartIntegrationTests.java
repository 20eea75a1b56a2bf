package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/**
 * The first start without QPLAB_ADMIN_PASSWORD: the admin's password is generated into a file only its user reads,
 * which the log names without ever printing the password; it logs in. And a lab's read-only dashboards
 * (qplab.security.anonymous-read): anyone reads, nobody without an account changes anything.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestPropertySource(properties = {
        "qplab.security.admin-password=",
        "qplab.security.admin-password-file=target/first-start/admin-password",
        "qplab.security.anonymous-read=true",
})
class FirstStartIntegrationTests extends ControllerIntegrationTest {

    private static final Path PASSWORD_FILE = Path.of("target", "first-start", "admin-password");

    @Test
    void theGeneratedAdminPasswordIsInA0600FileNamedInTheLogAndLogsIn(CapturedOutput output) throws Exception {
        assertThat(PASSWORD_FILE).exists();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(PASSWORD_FILE))).isEqualTo("rw-------");
        String password = Files.readString(PASSWORD_FILE).strip();
        assertThat(password).hasSizeGreaterThanOrEqualTo(20);
        // captured from before the context started (this class's properties give it a context of its own)
        assertThat(output.getAll()).as("the log names the file").contains("its password is in target/first-start/admin-password")
                .doesNotContain(password);
        BrowserSession browser = BrowserSession.logIn(anonymous(), "admin", password);
        anonymous().get().uri("/api/me").cookies(c -> browser.cookies().forEach(c::add)).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.name").isEqualTo("admin").jsonPath("$.anonymousRead").isEqualTo(true);
    }

    @Test
    void anonymousReadLetsAnyoneReadAndNobodyChange() {
        long experiments = count("experiment");
        anonymous().get().uri("/api/experiments").exchange().expectStatus().isOk();
        anonymous().get().uri("/").exchange().expectStatus().isOk();
        anonymous().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"x\",\"base\":{\"msg_size\":64}}").exchange().expectStatus().isUnauthorized();
        anonymous().get().uri("/api/users").exchange().expectStatus().isUnauthorized();
        anonymous().get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        assertThat(count("experiment")).isEqualTo(experiments);
    }
}
