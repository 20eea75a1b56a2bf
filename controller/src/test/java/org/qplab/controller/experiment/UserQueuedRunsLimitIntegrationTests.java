package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * qplab.limits.user-queued-runs: one account's submit beyond its own share answers 429 naming that limit and stores
 * nothing, while another account still submits. Experiments record who submitted them, and only that account (or an
 * admin) deletes one.
 */
@TestPropertySource(properties = "qplab.limits.user-queued-runs=3")
class UserQueuedRunsLimitIntegrationTests extends ControllerIntegrationTest {

    @Test
    void anAccountsOwnQueueIsLimitedAndItsExperimentsAreItsOwn() {
        WebTestClient operator = anonymous().mutate().defaultHeader("Authorization", "Bearer " + tokenOf("operator")).build();
        Map<String, Object> mine = operator.post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix("[64, 128, 256]")).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
        assertThat(mine).containsEntry("submittedBy", "test-operator");
        long experiments = count("experiment");

        Map<String, Object> refused = operator.post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix("[64]")).exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(refused).containsEntry("limit", "qplab.limits.user-queued-runs").containsEntry("value", 3)
                .containsEntry("queued", 3).containsEntry("requested", 1);
        assertThat((String) refused.get("error")).contains("test-operator has 3 now");
        assertThat(count("experiment")).as("nothing stored").isEqualTo(experiments);

        // the admin's share is its own
        long admins = ((Number) http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix("[64]")).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult()
                .getResponseBody().get("id")).longValue();
        http().post().uri("/api/experiments/{id}/cancel", admins).exchange().expectStatus().isOk();
        // an operator deletes its own ended experiment, not another account's
        operator.delete().uri("/api/experiments/{id}", admins).exchange().expectStatus().isForbidden().expectBody()
                .jsonPath("$.error").isEqualTo("only an admin or the account that submitted experiment " + admins
                        + " (admin) may delete it");
        long own = ((Number) mine.get("id")).longValue();
        operator.post().uri("/api/experiments/{id}/cancel", own).exchange().expectStatus().isOk();
        operator.delete().uri("/api/experiments/{id}", own).exchange().expectStatus().isNoContent();
        assertThat(jdbc.sql("SELECT count(*) FROM experiment WHERE id = ?").param(own).query(Long.class).single()).isZero();
        http().delete().uri("/api/experiments/{id}", admins).exchange().expectStatus().isNoContent();
    }

    private static String matrix(String sizes) {
        return "{\"name\":\"user quota\",\"hosts\":{\"loopback\":[\"nobody-is-here\"]},\"base\":{\"iterations\":1},"
                + "\"dimensions\":{\"msg_size\":" + sizes + "}}";
    }
}
