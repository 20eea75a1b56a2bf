package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Issue 31, finding 3: a browser session follows its account. A deleted account's session is over, a demoted
 * one's acts with the new role from its next request, a password change ends the account's other sessions (and
 * its tokens when the admin asks), changing a password needs the current one, and the last admin stays.
 */
class HostileClientSessionsIntegrationTests extends ControllerIntegrationTest {

    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final String MATRIX = """
            name: a session's submit
            hosts: {loopback: [nobody-is-here]}
            base: {provider: tcp, iterations: 10, msg_size: 64}
            """;

    /** A new account (name unique to this run) with this role; its password is "password of " + name. */
    private String account(String prefix, String role) {
        String name = prefix + "-" + NEXT.incrementAndGet();
        http().post().uri("/api/users").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", name, "password", "password of " + name, "role", role)).exchange()
                .expectStatus().isCreated();
        return name;
    }

    private BrowserSession logIn(String name) {
        return BrowserSession.logIn(anonymous(), name, "password of " + name);
    }

    private WebTestClient.ResponseSpec submit(BrowserSession session) {
        return session.on(anonymous()).post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(MATRIX).exchange();
    }

    /** Submits as the session would (201), then cancels what it stored (as the admin). */
    private void submitsAndCancels(BrowserSession session) {
        Object id = submit(session).expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                .get("id");
        http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().isOk();
    }

    @Test
    void aDeletedAccountsSessionIsOverAndSoIsTheSessionOfTheAccountBeforeItWasMadeAgain() {
        String name = account("leaver", "operator");
        BrowserSession session = logIn(name);
        submitsAndCancels(session);

        http().delete().uri("/api/users/{name}", name).exchange().expectStatus().isNoContent();
        long experiments = count("experiment");
        session.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        submit(session).expectStatus().isUnauthorized();
        assertThat(count("experiment")).as("nothing stored by the deleted account's session").isEqualTo(experiments);

        // the same name made again, as a viewer: the old session is not that account's
        String returner = account("returner", "operator");
        BrowserSession before = logIn(returner);
        http().delete().uri("/api/users/{name}", returner).exchange().expectStatus().isNoContent();
        http().post().uri("/api/users").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", returner, "password", "password of " + returner, "role", "viewer")).exchange()
                .expectStatus().isCreated();
        before.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        submit(before).expectStatus().isUnauthorized();
        assertThat(count("experiment")).isEqualTo(experiments);
    }

    @Test
    void aDemotedAccountsSessionActsAsAViewerAtOnceAndAPromotedOneAsAnOperator() {
        String name = account("demoted", "operator");
        BrowserSession session = logIn(name);
        submitsAndCancels(session);

        http().put().uri("/api/users/{name}/role", name).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("role", "viewer")).exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.role").isEqualTo("viewer");
        long experiments = count("experiment");
        session.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.role").isEqualTo("viewer");
        submit(session).expectStatus().isForbidden().expectBody().jsonPath("$.error")
                .isEqualTo("your role (viewer) may not POST /api/experiments: needs an operator");
        assertThat(count("experiment")).as("nothing stored by the demoted session").isEqualTo(experiments);

        http().put().uri("/api/users/{name}/role", name).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("role", "operator")).exchange().expectStatus().isOk();
        submitsAndCancels(session);
        // and a role that is none is named
        http().put().uri("/api/users/{name}/role", name).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("role", "root")).exchange().expectStatus().isBadRequest().expectBody()
                .jsonPath("$.violations[0].field").isEqualTo("role");
    }

    @Test
    void changingAPasswordNeedsTheCurrentOneAndEndsTheAccountsOtherSessions() {
        String name = account("changer", "viewer");
        BrowserSession here = logIn(name);
        BrowserSession elsewhere = logIn(name);
        String token = (String) here.on(anonymous()).post().uri("/api/tokens").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "a script")).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody().get("token");
        WebTestClient script = anonymous().mutate().defaultHeader("Authorization", "Bearer " + token).build();
        String hash = passwordHash(name);

        // a stolen session alone cannot set a new password
        here.on(anonymous()).put().uri("/api/me/password").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("password", "the thief's choice")).exchange().expectStatus().isBadRequest()
                .expectBody().jsonPath("$.violations[0].field").isEqualTo("currentPassword");
        here.on(anonymous()).put().uri("/api/me/password").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("currentPassword", "a guess", "password", "the thief's choice")).exchange()
                .expectStatus().isForbidden().expectBody().jsonPath("$.error").isEqualTo("the current password is wrong");
        assertThat(passwordHash(name)).as("unchanged").isEqualTo(hash);
        elsewhere.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isOk();

        // the owner's own change: this session stays, the other one ends, the token (not asked for) works on
        here.on(anonymous()).put().uri("/api/me/password").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("currentPassword", "password of " + name, "password", "a new password")).exchange()
                .expectStatus().isNoContent();
        here.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.name").isEqualTo(name);
        elsewhere.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        script.get().uri("/api/me").exchange().expectStatus().isOk();

        // an admin's reset with revokeTokens: every session and token of the account ends
        http().put().uri("/api/users/{name}/password", name).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("password", "the admin's reset", "revokeTokens", true)).exchange()
                .expectStatus().isNoContent();
        here.on(anonymous()).get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        script.get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        assertThat(jdbc.sql("SELECT count(*) FROM api_token WHERE account = ? AND revoked_at IS NULL").param(name)
                .query(Long.class).single()).as("no token of the account left").isZero();
        BrowserSession.logIn(anonymous(), name, "the admin's reset").on(anonymous()).get().uri("/api/me").exchange()
                .expectStatus().isOk();
    }

    @Test
    void theLastAdminCannotBeDeletedOrDemoted() {
        // other tests may have made admins: make them operators for this test, and admins again after it
        List<String> others = jdbc.sql("SELECT name FROM account WHERE role = 'admin' AND name <> 'admin'")
                .query(String.class).list();
        try {
            others.forEach(other -> http().put().uri("/api/users/{name}/role", other).contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("role", "operator")).exchange().expectStatus().isOk());
            http().delete().uri("/api/users/admin").exchange().expectStatus().isEqualTo(409).expectBody()
                    .jsonPath("$.error").isEqualTo("'admin' is the last admin: make another admin first");
            http().put().uri("/api/users/admin/role").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("role", "viewer")).exchange().expectStatus().isEqualTo(409);
            assertThat(jdbc.sql("SELECT role FROM account WHERE name = 'admin'").query(String.class).single())
                    .isEqualTo("admin");

            // with a second admin, either may go, but not both
            String second = account("second-admin", "admin");
            String secondToken = as(second);
            anonymous().mutate().defaultHeader("Authorization", "Bearer " + secondToken).build()
                    .put().uri("/api/users/admin/role").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("role", "operator")).exchange().expectStatus().isOk();
            anonymous().mutate().defaultHeader("Authorization", "Bearer " + secondToken).build()
                    .delete().uri("/api/users/{name}", second).exchange().expectStatus().isEqualTo(409);
            anonymous().mutate().defaultHeader("Authorization", "Bearer " + secondToken).build()
                    .put().uri("/api/users/admin/role").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("role", "admin")).exchange().expectStatus().isOk();
            http().delete().uri("/api/users/{name}", second).exchange().expectStatus().isNoContent();
        } finally {
            jdbc.sql("UPDATE account SET role = 'admin' WHERE name = 'admin'").update();
            others.forEach(other -> http().put().uri("/api/users/{name}/role", other).contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("role", "admin")).exchange());
        }
    }

    /** An API token of this account, made through its own session. */
    private String as(String name) {
        return (String) logIn(name).on(anonymous()).post().uri("/api/tokens").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "test")).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody().get("token");
    }

    private String passwordHash(String name) {
        return jdbc.sql("SELECT password_hash FROM account WHERE name = ?").param(name).query(String.class).single();
    }
}
