package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.qplab.controller.NetworkNamespaces;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.testkit.AgentProcess;
import org.springframework.http.MediaType;

/**
 * A fabric of four hosts (network namespaces on one bridge, a real agent in each) with one slow link: host 4's is
 * limited to 100 Mbit/s by tc. Every pair runs, in rounds of pairs that share no host (a round's pairs at the same
 * time); the pairs judged against the best name exactly host 4's as bad, are retested, stay bad, and the experiment
 * page shows them as a host x host heatmap, bad pairs outlined, with its CSV.
 */
class HostPairsBrowserIntegrationTests extends BrowserTest {

    private static final int HOSTS = 4;
    private static NetworkNamespaces net;
    private static final List<AgentProcess> agents = new ArrayList<>();

    @BeforeAll
    static void hosts() throws Exception {
        NetworkNamespaces.assumeAvailable("pairs test");
        net = NetworkNamespaces.create(85, HOSTS);
        net.shape(4, "100mbit");
    }

    @AfterAll
    static void down() throws Exception {
        for (AgentProcess agent : agents) {
            agent.close();
        }
        if (net != null) {
            net.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyPairRunsInRoundsAndTheSlowLinksPairsAreJudgedBadAndRetested() throws Exception {
        List<String> ids = List.of("p1", "p2", "p3", "p4");
        for (int i = 1; i <= HOSTS; i++) {
            agents.add(AgentProcess.start(net.in(i, List.of()), "ws://" + net.hostAddress() + ":" + port + "/agent",
                    ids.get(i - 1), TOKEN));
        }
        awaitAgentsConnected(ids, () -> logsOf(agents));
        Map<String, Object> created = http().post().uri("/api/experiments")
                .contentType(MediaType.parseMediaType("application/yaml")).bodyValue("""
                        name: fabric
                        hosts: {group: [p1, p2, p3, p4]}
                        base: {provider: tcp, msg_size: 64K, duration_ms: 1500}
                        retests: 1
                        bad_below: 0.1
                        """).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        Map<String, Object> ended = awaitExperimentEnd(id, Duration.ofMinutes(3), () -> logsOf(agents));
        assertThat(ended.get("status")).as(logsOf(agents)).isEqualTo("FINISHED");

        // queued in rounds (p1-p4, p2-p3), (p1-p2, p3-p4), (p1-p3, p2-p4): a round's two pairs ran at once; then
        // the retest of the pairs judged bad (host 4's), once (retests: 1), after the last of those
        List<Map<String, Object>> runs = jdbc.sql("SELECT want_client || '-' || want_server AS pair, started_at, "
                + "finished_at, retest FROM run WHERE experiment_id = ? ORDER BY id").param(id).query().listOfRows();
        assertThat(runs).extracting(r -> r.get("pair") + "#" + r.get("retest")).as(logsOf(agents)).containsExactly(
                "p1-p4#0", "p2-p3#0", "p1-p2#0", "p3-p4#0", "p1-p3#0", "p2-p4#0", "p1-p4#1", "p2-p4#1", "p3-p4#1");
        Timestamp sweepEnd = runs.subList(0, 6).stream().map(r -> (Timestamp) r.get("finished_at"))
                .max(Timestamp::compareTo).orElseThrow();
        assertThat(runs.subList(6, 9)).allSatisfy(r -> assertThat((Timestamp) r.get("started_at")).isAfter(sweepEnd));
        Map<String, Object> a = runs.get(0);
        Map<String, Object> b = runs.get(1);
        assertThat(((Timestamp) a.get("started_at")).before((Timestamp) b.get("finished_at"))
                && ((Timestamp) b.get("started_at")).before((Timestamp) a.get("finished_at")))
                .as("the first round's pairs overlapped in time: %s", runs.subList(0, 2)).isTrue();

        // bad below a tenth of the best (the matrix's bad_below): the shaped link carries ~1/100 of what the bridge
        // does, while two pairs sharing this machine's cores scatter by 2-3x (ClusterKit's 0.93 would judge that
        // scatter, not the link)
        Map<String, Object> judged = http().get().uri("/api/experiments/" + id + "/pairs").exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(judged.get("metric")).isEqualTo("bw_avg_bps");
        assertThat(judged.get("hosts")).isEqualTo(ids);
        List<Map<String, Object>> configurations = (List<Map<String, Object>>) judged.get("configurations");
        assertThat(configurations).hasSize(1);
        List<Map<String, Object>> pairs = (List<Map<String, Object>>) configurations.get(0).get("pairs");
        assertThat(pairs).hasSize(6);
        for (Map<String, Object> pair : pairs) {
            boolean slow = pair.get("server").equals("p4") || pair.get("client").equals("p4");
            assertThat(pair.get("bad")).as("%s (a pair %s the 100 Mbit/s link), of the best: %s", pair,
                    slow ? "across" : "not across", configurations.get(0).get("best")).isEqualTo(slow);
            assertThat(pair.get("rounds")).as("%s: retested while bad", pair).isEqualTo(slow ? 2 : 1);
        }
        assertThat((String) configurations.get(0).get("bestPair")).doesNotContain("p4");
        assertThat(configurations.get(0).get("bad")).isEqualTo(3);

        // the experiment page: the heatmap at the matrix's rule: host 4's pairs outlined, each cell the pair's median
        // (of its last round) in Gbit/s
        open("#/experiments/" + id);
        waitFor(By.cssSelector("[data-chart=hostPairs] table.pair-heatmap"));
        Map<String, Object> byDefault = http().get().uri("/api/experiments/" + id + "/pairs").exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        List<Map<String, Object>> shown = (List<Map<String, Object>>) ((List<Map<String, Object>>) byDefault
                .get("configurations")).get(0).get("pairs");
        List<WebElement> cells = browser.findElements(By.cssSelector("[data-chart=hostPairs] td[data-pair]"));
        assertThat(cells).hasSize(6);
        for (Map<String, Object> pair : shown) {
            String name = pair.get("client") + "/" + pair.get("server");
            WebElement cell = browser.findElement(By.cssSelector("[data-chart=hostPairs] td[data-pair='" + name + "']"));
            assertThat(cell.getDomAttribute("data-bad")).as(name).isEqualTo(String.valueOf(pair.get("bad")));
            assertShows(cell.getText(), ((Number) pair.get("value")).doubleValue() * 8 / 1e9, name + " [Gbit/s]");
            if (name.contains("p4")) {
                assertThat(cell.getDomAttribute("class")).as(name).contains("bad");
                assertThat(cell.getDomAttribute("title")).as(name).contains("of its retest 1");
            }
        }
        assertThat(browser.findElement(By.cssSelector("[data-chart=hostPairs] .chart-title")).getText())
                .isEqualTo("Host pairs: bw_avg_bps [Gbit/s], bad below 10 % of the best");
        click(By.cssSelector("[data-chart=hostPairs] .card-controls button"));
        List<String> csv = Files.readAllLines(downloaded("host-pairs.csv"));
        assertThat(csv.get(0)).startsWith("client,server,bw_avg_bps [B/s],n,relative to best,bad,rounds,");
        assertThat(csv).hasSize(7).anyMatch(line -> line.startsWith("p1,p4,") && line.contains(",true,2,"));

        http().get().uri("/api/experiments/" + id + "/pairs?bad_below=1.5&bad_above=0.5&metric=speed").exchange()
                .expectStatus().isBadRequest().expectBody(JSON_OBJECT).value(body -> assertThat(body.toString())
                        .contains("bad_below").contains("bad_above").contains("metric"));
    }
}
