package org.qplab.controller;

import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.test.web.reactive.server.WebTestClient;

/** Scrapes of GET /actuator/prometheus as the tests read them: waited for, and a sample's value out of the text. */
public final class PrometheusScrape {

    private PrometheusScrape() {
    }

    /** Scrapes until until holds (at most 30 s), and returns that scrape; fails showing the last one's qplab_ lines. */
    public static String await(WebTestClient http, Predicate<String> until) throws InterruptedException {
        String last = "";
        for (int i = 0; i < 120; i++) {
            last = http.get().uri("/actuator/prometheus").exchange().expectStatus().isOk().expectBody(String.class)
                    .returnResult().getResponseBody();
            if (until.test(last)) {
                return last;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the scrape never showed what was awaited within 30 s:\n" + last.lines()
                .filter(l -> l.startsWith("qplab_")).reduce("", (a, b) -> a + b + "\n"));
    }

    /** A sample's value from the Prometheus text format (name, or name{label="value"}); NaN when absent. */
    public static double metric(String scrape, String name) {
        String series = name.contains("{") ? name.substring(0, name.indexOf('{')) : name;
        String labels = name.contains("{") ? name.substring(name.indexOf('{') + 1, name.length() - 1) : "";
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + "(\\{([^}]*)\\})? ([-+0-9.eE]+|NaN)$").matcher(scrape);
        while (m.find()) {
            String got = m.group(2) == null ? "" : m.group(2);
            if (labels.isEmpty() || got.contains(labels)) {
                return Double.parseDouble(m.group(3));
            }
        }
        return Double.NaN;
    }
}
