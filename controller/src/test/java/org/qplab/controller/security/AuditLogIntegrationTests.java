package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * GET /api/audit, a page at a time and filtered: an account of its own makes seven audited changes (one refused), and
 * the admin reads them back in pages of three by the cursor (the Link header's next page), and by actor, action,
 * status and time. Validating a matrix stores nothing and is not audited, whoever asks and whatever the answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditLogIntegrationTests extends ControllerIntegrationTest {

    private static final String ACTOR = "audit-pager";
    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    @Autowired
    private Accounts accounts;
    @Autowired
    private ApiTokens tokens;

    /** The account's seven events, newest first, as the log lists them. */
    private List<Map<String, Object>> all;

    @BeforeAll
    void sevenChangesAndFourValidations() throws Exception {
        accounts.create(ACTOR, "password-of-the-pager", "viewer");
        WebTestClient pager = anonymous().mutate().defaultHeader("Authorization", "Bearer "
                + tokens.issue(ACTOR, "audit paging").token()).build();
        for (WebTestClient who : List.of(pager, http())) {
            who.post().uri("/api/experiments/validate").contentType(YAML)
                    .bodyValue("name: checked only\nbase: {provider: tcp, msg_size: 4096}\n").exchange().expectStatus().isOk();
            who.post().uri("/api/experiments/validate").contentType(YAML)
                    .bodyValue("name: refused\nbase: {provider: tcp, msg_size: 0}\n").exchange().expectStatus().isBadRequest();
        }
        long id = 0;
        for (int i = 0; i < 5; i++) {
            id = ((Number) pager.post().uri("/api/tokens").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", "page " + i)).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT)
                    .returnResult().getResponseBody().get("id")).longValue();
        }
        pager.delete().uri("/api/tokens/{id}", id).exchange().expectStatus().isNoContent();
        pager.post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "not-for-a-viewer", "address", "198.18.0.1")).exchange().expectStatus().isForbidden();
        // written just after each answer, off the event loop
        Await.until("the pager's seven events are in the log", Duration.ofSeconds(15),
                () -> events("actor=" + ACTOR + "&limit=100").size() == 7, () -> events("actor=" + ACTOR).toString());
        all = events("actor=" + ACTOR + "&limit=100");
    }

    @Test
    void theLogIsReadInPagesNewestFirstByTheCursorUntilAShortPage() {
        assertThat(all).extracting(e -> ((Number) e.get("id")).longValue()).as("newest first, by id")
                .isSortedAccordingTo((a, b) -> Long.compare(b, a));
        assertThat(all).as("the answer's shape, as before").allSatisfy(e -> assertThat(e).containsOnlyKeys("id", "at",
                "actor", "action", "target", "status", "remote", "times").containsEntry("actor", ACTOR));

        List<Map<String, Object>> read = new ArrayList<>();
        String next = "/api/audit?actor=" + ACTOR + "&limit=3";
        List<Integer> pages = new ArrayList<>();
        while (next != null) {
            EntityExchangeResult<List<Map<String, Object>>> page = http().get().uri(uri(next)).exchange()
                    .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult();
            read.addAll(page.getResponseBody());
            pages.add(page.getResponseBody().size());
            String link = page.getResponseHeaders().getFirst("Link");
            next = link == null ? null : link.substring(1, link.indexOf('>'));
            if (next != null) {
                assertThat(link).endsWith(">; rel=\"next\"");
                assertThat(next).as("the same query, before the page's last id").isEqualTo("/api/audit?actor=" + ACTOR
                        + "&limit=3&before=" + read.get(read.size() - 1).get("id"));
            }
        }
        assertThat(pages).containsExactly(3, 3, 1);
        assertThat(read).as("every event once, in the same order").isEqualTo(all);
        assertThat(events("actor=" + ACTOR + "&before=" + all.get(0).get("id") + "&limit=100")).isEqualTo(all.subList(1, 7));
    }

    @Test
    void theLogIsFilteredByActionStatusAndTime() {
        assertThat(events("actor=" + ACTOR + "&action=TOKENS")).as("any case, a part of the action").hasSize(6)
                .isEqualTo(only(e -> ((String) e.get("action")).contains("/api/tokens")));
        assertThat(events("actor=" + ACTOR + "&action=DELETE")).singleElement()
                .satisfies(e -> assertThat(e).containsEntry("status", 204));
        assertThat(events("actor=" + ACTOR + "&status=201")).hasSize(5);
        assertThat(events("actor=" + ACTOR + "&status=4xx")).isEqualTo(only(e -> e.get("status").equals(403)));
        assertThat(events("actor=nobody-of-that-name")).isEmpty();
        assertThat(events("action=100%25_sure")).as("% and _ are literal").isEmpty();

        OffsetDateTime middle = OffsetDateTime.parse((String) all.get(3).get("at"));
        String at = middle.toString().replace("+", "%2B");
        assertThat(events("actor=" + ACTOR + "&since=" + at)).isEqualTo(only(e -> !at(e).isBefore(middle)));
        assertThat(events("actor=" + ACTOR + "&until=" + at)).isEqualTo(only(e -> at(e).isBefore(middle)));
        assertThat(events("actor=" + ACTOR + "&since=" + at + "&status=2xx&limit=2")).hasSize(2);
    }

    @Test
    void validatingAMatrixIsNotAuditedWhoeverAsksAndWhateverTheAnswer() {
        assertThat(events("action=validate&limit=10000")).isEmpty();
        assertThat(jdbc.sql("SELECT count(*) FROM audit_event WHERE action LIKE '%/validate%'").query(Long.class).single())
                .isZero();
    }

    @Test
    void badParametersAreA400NamingEach() {
        Map<String, Object> body = http().get().uri("/api/audit?status=teapot&since=yesterday&before=0").exchange()
                .expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat((List<Map<String, Object>>) body.get("violations")).extracting(v -> v.get("field"))
                .containsExactly("before", "status", "since");
        http().get().uri("/api/audit?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z").exchange()
                .expectStatus().isBadRequest().expectBody().jsonPath("$.violations[0].field").isEqualTo("until");
    }

    private List<Map<String, Object>> only(Predicate<Map<String, Object>> which) {
        return all.stream().filter(which).toList();
    }

    private static OffsetDateTime at(Map<String, Object> event) {
        return OffsetDateTime.parse((String) event.get("at"));
    }

    private List<Map<String, Object>> events(String query) {
        return http().get().uri(uri("/api/audit?" + query)).exchange().expectStatus().isOk().expectBody(JSON_ARRAY)
                .returnResult().getResponseBody();
    }

    /** The URL as written, encoded already: the client does not encode it again. */
    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }
}
