package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/** qplab.limits.queued-runs: a submit whose runs would pass it answers 429 naming the limit, and stores nothing. */
@TestPropertySource(properties = "qplab.limits.queued-runs=5")
class QueuedRunsLimitIntegrationTests extends ControllerIntegrationTest {

    @Test
    void aSubmitBeyondTheQueuedRunsLimitIsRefusedNamingItAndStoresNothing() {
        long first = submit("[64, 128, 256]", HttpStatus.CREATED);
        long experiments = count("experiment");
        long runs = count("run");

        Map<String, Object> refused = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix("[64, 128, 256]")).exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(refused).containsEntry("limit", "qplab.limits.queued-runs").containsEntry("value", 5)
                .containsEntry("queued", 3).containsEntry("requested", 3);
        assertThat((String) refused.get("error")).isEqualTo("the queue holds at most 5 runs (qplab.limits.queued-runs)"
                + " and 3 are queued or running now: this matrix's 3 runs do not fit; submit it when runs have finished,"
                + " or cancel some");
        assertThat(count("experiment")).as("experiments stored").isEqualTo(experiments);
        assertThat(count("run")).as("runs stored").isEqualTo(runs);

        long second = submit("[64, 128]", HttpStatus.CREATED); // exactly at the limit
        jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'nobody' WHERE experiment_id = ?").param(second).update();
        submit("[64]", HttpStatus.TOO_MANY_REQUESTS); // running runs count too

        http().post().uri("/api/experiments/{id}/cancel", first).exchange().expectStatus().isOk();
        submit("[64, 128, 256]", HttpStatus.CREATED); // cancelled runs leave room
    }

    private long submit(String sizes, HttpStatus expected) {
        Map<String, Object> body = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(matrix(sizes)).exchange().expectStatus().isEqualTo(expected).expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
        return body.get("id") instanceof Number id ? id.longValue() : -1;
    }

    private static String matrix(String sizes) {
        return "{\"name\":\"quota\",\"base\":{\"iterations\":1},\"dimensions\":{\"msg_size\":" + sizes + "}}";
    }
}
