package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/** The experiments list's filters, a run's live view and what it keeps, and the hosts page, in headless Chromium. */
class DashboardPagesBrowserIntegrationTests extends BrowserTest {

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    /**
     * Stored data, not a measurement: the facts an agent on a Soft-RoCE host reports (the shape the
     * agent's HostFacts sends), because the test machine has no RDMA device of its own.
     */
    private static final String RDMA_DEVICE_FIXTURE = """
            {"hostname": "fixture-node1", "kernel": "6.1.0-fixture", "cpus": 4, "cpu_model": "Fixture CPU",
             "memory_kib": 8388608, "java": "OpenJDK 17", "engine": {"version": "0.1.0"},
             "rdma_core": "rdma-core 44.0 (libibverbs.so.1.14.44.0)",
             "rdma_devices": [{"name": "rxe0", "fw_ver": "0.0.0", "node_guid": "5054:00ff:fe12:3456",
               "vendor_id": 16777215, "vendor_part_id": 0, "max_qp": 1048560, "max_qp_wr": 1048576, "max_sge": 32,
               "max_cq": 1048576, "max_cqe": 32767, "max_mr": 524287, "max_srq": 917503, "max_srq_wr": 1048576,
               "max_qp_rd_atom": 128, "max_inline_data": 0, "xrc": false, "device_cap_flags": "0x00213c76",
               "ports": [{"port": 1, "state": "ACTIVE", "link_layer": "Ethernet", "max_mtu": 4096, "active_mtu": 1024,
                 "lid": 0, "gids": [{"index": 0, "gid": "fe80::5054:ff:fe12:3456", "type": "RoCE v2"},
                                    {"index": 1, "gid": "::ffff:198.18.0.11", "type": "RoCE v2"}]}]}]}""";
    private static final String NO_RDMA_FIXTURE = """
            {"hostname": "fixture-node2", "kernel": "6.1.0-fixture", "cpus": 2,
             "rdma_unavailable": "/sys/class/infiniband is empty: no RDMA driver is loaded"}""";

    @Test
    void theListFiltersByStatusAndNameAndShowsTheTimeLeftOfARunningExperiment() throws Exception {
        long queued = submit("filter-ui-queued", "[1]");
        long cancelled = submit("filter-ui-cancelled", "[1]");
        http().post().uri("/api/experiments/{id}/cancel", cancelled).exchange().expectStatus().isOk();
        long running = submit("filter-ui-running", "[1, 2, 3, 4, 5]");
        // two of five runs finished after 10 s and 20 s, one runs: 2 runs left × 15 s ÷ 1 running = 45 s
        List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? ORDER BY idx").param(running).query(Long.class).list();
        jdbc.sql("""
                UPDATE run SET status = 'FINISHED', started_at = now() - interval '1 minute',
                    finished_at = now() - interval '1 minute' + make_interval(secs => CASE WHEN idx = 0 THEN 10 ELSE 20 END)
                WHERE id = ANY(?)""").param(new Long[] {runs.get(0), runs.get(1)}).update();
        jdbc.sql("UPDATE run SET status = 'RUNNING', started_at = now() WHERE id = ?").param(runs.get(2)).update();
        jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ?").param(running).update();
        try {
            open("");
            waitFor(By.id("filter-name")).sendKeys("FILTER-ui");
            awaitRows(Set.of(queued, cancelled, running));

            new Select(browser.findElement(By.id("filter-status"))).selectByValue("RUNNING");
            awaitRows(Set.of(running));
            WebElement row = browser.findElement(By.id("experiment-" + running));
            assertThat(row.getText()).contains("2 / 5 runs · 40 %").contains("~45 s left");
            assertThat(browser.getCurrentUrl()).endsWith("#/?status=RUNNING&name=FILTER-ui");
            screenshot("experiments-filtered");

            open("#/?status=CANCELLED&name=filter-ui"); // a shared link opens with its filter
            awaitRows(Set.of(cancelled));
            assertThat(new Select(browser.findElement(By.id("filter-status"))).getFirstSelectedOption().getAttribute("value"))
                    .isEqualTo("CANCELLED");
        } finally {
            List.of(queued, running).forEach(id -> http().post().uri("/api/experiments/{id}/cancel", id).exchange());
            jdbc.sql("UPDATE run SET status = 'CANCELLED' WHERE experiment_id = ? AND status = 'RUNNING'").param(running).update();
        }
    }

    @Test
    void aRunsThroughputCycleTimeAndPercentilesArriveLivePerIntervalAndEqualItsStoredIntervals() throws Exception {
        // A run of ten minutes shows what a running run's charts say: it is running for as long as the test looks,
        // however slow the machine. The one that ends (1.5 s, queued behind it on the same agent) shows the rest.
        long held = submitLive("live-browser-held", 600_000);
        long heldRun = onlyRun(held);
        open("#/runs/" + heldRun); // no agent yet: the run waits in the queue while the page subscribes
        waiting(Duration.ofSeconds(20)).until(driver ->
                "watching".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));

        try (AgentProcess agent = AgentProcess.start(port, "live-browser-agent", TOKEN)) {
            long created;
            long runId;
            try {
                // while it runs, a thread's percentiles cannot be merged with another's: the chart says whose it shows
                List<String> whileRunning = waiting(Duration.ofSeconds(60)).until(driver -> {
                    List<String> labels = labels("runPercentiles");
                    return labels.isEmpty() ? null : labels;
                });
                assertThat(whileRunning).as("agent log: %s", agent.log())
                        .containsExactly("p50, max over threads", "p99, max over threads", "p99.9, max over threads");
                assertThat(axis("runPercentiles", "y")).containsEntry("type", "logarithmic");
                assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(heldRun).query(String.class).single())
                        .as("the labels were read while the run ran").isEqualTo("RUNNING");
                // a page that joins part way is not sent what was stored before it: it counts those cycles and says so
                browser.navigate().refresh();
                String joined = waiting(Duration.ofSeconds(30)).until(driver -> {
                    String text = driver.findElement(By.id("live-state")).getText();
                    return text.contains("before this page joined") ? text : null;
                });
                assertThat(joined).matches("Live: [\\d,]+ intervals, [\\d,]+ cycles "
                        + "\\([\\d,]+ of them stored before this page joined, not drawn\\)\\.");

                created = submitLive("live-browser", 1500); // one benchmark per host: it waits for the held one
                runId = onlyRun(created);
                open("#/runs/" + runId);
                waiting(Duration.ofSeconds(20)).until(driver ->
                        "watching".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));
                assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(runId).query(String.class).single())
                        .as("queued behind the held run").isEqualTo("QUEUED");
            } finally {
                http().post().uri("/api/experiments/{id}/cancel", held).exchange().expectStatus().isOk();
            }
            waiting(Duration.ofSeconds(60)).until(driver ->
                    "ended".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));
            awaitCharts(Duration.ofSeconds(20), "runThroughput", "runCycleTime", "runDistribution");
            screenshot("live");

            Map<String, List<Map<String, Double>>> live = points("runThroughput");
            assertThat(live).containsOnlyKeys("thread 0", "thread 1");
            assertThat(live.get("thread 0")).as("intervals drawn (agent log: %s)", agent.log()).hasSizeGreaterThanOrEqualTo(3);
            assertEveryStoredCycleIsDrawnOnce(runId, live);
            long intervals = jdbc.sql("SELECT count(*) FROM run_interval WHERE run_id = ?").param(runId).query(Long.class).single();
            assertThat(live.values().stream().mapToInt(List::size).sum()).as("one point per stored interval").isEqualTo((int) intervals);
            assertThat(browser.findElement(By.id("live-state")).getText())
                    .isEqualTo(String.format(Locale.ENGLISH, "Run finished: %,d intervals, %,d cycles received live.", intervals,
                            summaryCycles(runId)));
            // once it has ended, the exact percentiles over every thread replace the live ones
            waiting(Duration.ofSeconds(20)).until(driver -> labels("runPercentiles").equals(List.of("p50", "p99", "p99.9")));
            assertPercentilesShowTheTimeline(runId);
            assertThat(points("runCycleTime").get("thread 1")).hasSameSizeAs(live.get("thread 1"));
            assertThat(axis("runThroughput", "y")).containsEntry("title", "Throughput (Gbit/s)").containsEntry("beginAtZero", true);
            assertThat(axis("runThroughput", "x")).containsEntry("title", "Time since the run started (s)");
            assertThat(axis("runCycleTime", "y")).containsEntry("title", "Cycle time (µs)");

            // opened again, the finished run draws its stored timeline: the points the REST API serves
            open("#/experiments/" + created);
            open("#/runs/" + runId);
            waiting(Duration.ofSeconds(20)).until(driver ->
                    "stored".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));
            awaitCharts(Duration.ofSeconds(20), "runThroughput", "runDistribution");
            Map<String, List<Map<String, Double>>> stored = points("runThroughput");
            assertEveryStoredCycleIsDrawnOnce(runId, stored);
            List<Map<String, Object>> timeline = timeline(runId);
            assertThat(stored.values().stream().mapToInt(List::size).sum()).isEqualTo(timeline.size());
            assertPercentilesShowTheTimeline(runId);
            for (Map<String, Object> slot : timeline) {
                Map<String, Double> point = stored.get("thread " + slot.get("thread")).stream()
                        .filter(p -> p.get("lastEndNs") == ((Number) slot.get("lastEndNs")).doubleValue()).findFirst().orElseThrow();
                double span = ((Number) slot.get("lastEndNs")).doubleValue() - ((Number) slot.get("firstStartNs")).doubleValue();
                assertThat(point.get("y")).isCloseTo(((Number) slot.get("bytes")).doubleValue() * 8 / span, offset(1e-9));
            }
            assertThat(points("runDistribution").get("run #" + runId).stream().mapToDouble(p -> p.get("count")).sum())
                    .as("every cycle of the run").isEqualTo((double) summaryCycles(runId));
            assertThat(traceRows(runId)).as("the run asked for no trace: every chart is drawn from its intervals").isZero();
        }
    }

    /** A tcp loopback run of 64 KiB messages on two threads, on the agent live-browser-agent; its experiment's id. */
    private long submitLive(String name, long durationMs) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"" + name + "\",\"hosts\":{\"loopback\":[\"live-browser-agent\"]},\"base\":"
                        + "{\"provider\":\"tcp\",\"msg_size\":65536,\"threads\":2,\"duration_ms\":" + durationMs + "}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private long onlyRun(long experiment) {
        return jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
    }

    @Test
    void aRunWhoseAgentWasKilledShowsAsRetriedAndPartialBesideTheTryThatReplacedIt() throws Exception {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"killed-browser\",\"hosts\":{\"loopback\":[\"killed-browser-agent\"]},"
                        + "\"base\":{\"provider\":\"tcp\",\"msg_size\":4096,\"duration_ms\":3000}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long experiment = ((Number) created.get("id")).longValue();
        long first = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        AgentProcess agent = AgentProcess.start(port, "killed-browser-agent", TOKEN);
        try {
            waiting(Duration.ofSeconds(60)).until(driver ->
                    jdbc.sql("SELECT count(*) FROM run_interval WHERE run_id = ?").param(first).query(Long.class).single() > 0);
            agent.kill();
            agent = agent.restart(); // it comes back without the run: that try fails, the point runs again
            awaitExperimentEnd(experiment, Duration.ofSeconds(60), agent::log);
        } finally {
            agent.close();
        }
        long kept = jdbc.sql("SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = ?").param(first)
                .query(Long.class).single();
        assertThat(kept).as("cycles of the intervals that reached the controller before the kill").isPositive();
        long second = jdbc.sql("SELECT superseded_by FROM run WHERE id = ?").param(first).query(Long.class).single();

        open("#/experiments/" + experiment);
        WebElement failedRow = waitFor(By.id("run-" + first));
        screenshot("retried");
        assertThat(failedRow.getAttribute("data-status")).isEqualTo("FAILED");
        assertThat(failedRow.findElement(By.cssSelector(".try-note")).getText())
                .isEqualTo("retried as #%d · partial: %,d cycles kept", second, kept);
        assertThat(failedRow.getText()).contains("came back without the run");
        WebElement secondRow = browser.findElement(By.id("run-" + second));
        assertThat(secondRow.getAttribute("data-status")).isEqualTo("FINISHED");
        assertThat(secondRow.findElement(By.cssSelector(".try-note")).getText()).isEqualTo("try 2");
        assertThat(browser.findElements(By.cssSelector("#runs tbody tr")).stream().map(r -> r.getAttribute("id")).toList())
                .as("the two tries of the point, in the order they ran").containsExactly("run-" + first, "run-" + second);
        assertThat(browser.findElement(By.cssSelector(".summary-line .retried")).getText()).isEqualTo("1 retried");
    }

    /**
     * A pair run's two summaries as the engine writes them (stored data, not a measurement: this machine has no
     * RDMA device): the run page shows each side's CPU, the counters that moved, and a warning naming the
     * retransmission counters that moved.
     */
    @Test
    void aRunPageShowsEachSidesCpuAndCountersAndWarnsOfRetransmissions() throws Exception {
        long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 43, 1.0, "6.18.0-pages-43");
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        jdbc.sql("""
                UPDATE run_summary SET summary = summary || '{"cpu": {"span_ns": 2500000000, "engine_user_ns": 1800000000,
                  "engine_sys_ns": 600000000, "engine_util_pct": 96.0, "host_cpus": 4, "host_user_pct": 20.5,
                  "host_sys_pct": 6.25, "host_util_pct": 26.75, "perftest_util_pct": 21.0},
                  "counters": {"source": "sysfs", "device": "rxe0", "port": 1, "deltas": {"hw_counters/sent_pkts": 10576,
                  "hw_counters/completer_retry_err": 36, "hw_counters/rcvd_seq_err": 0}, "unreadable": [], "error": null},
                  "warnings": ["hw_counters/completer_retry_err moved by 36"]}'::jsonb WHERE run_id = ?""")
                .param(runId).update();
        jdbc.sql("""
                UPDATE run SET server_summary = '{"side": "receiver", "cpu": {"span_ns": 2600000000, "engine_user_ns": 10000000,
                  "engine_sys_ns": 20000000, "engine_util_pct": 1.15, "host_cpus": 4, "host_user_pct": null,
                  "host_sys_pct": null, "host_util_pct": null, "perftest_util_pct": null},
                  "counters": {"source": "sysfs", "device": "rxe0", "port": 1, "deltas": {"hw_counters/rcvd_pkts": 10576,
                  "hw_counters/duplicate_request": 576, "hw_counters/link_downed": 1}, "unreadable": [], "error": null},
                  "warnings": ["hw_counters/duplicate_request moved by 576", "hw_counters/link_downed moved by 1"]}'::jsonb
                WHERE id = ?""").param(runId).update();

        open("#/runs/" + runId);
        waitFor(By.id("run-cpu"));
        assertThat(browser.findElement(By.cssSelector("#run .card.header #run-warnings")).getText())
                .as("at the top of the page").contains("Retransmission or error counters moved")
                .contains("client: hw_counters/completer_retry_err moved by 36")
                .contains("server: hw_counters/duplicate_request moved by 576")
                .contains("server: hw_counters/link_downed moved by 1");
        assertThat(rows("run-cpu")).containsExactly(
                List.of("client", "2.5", "1.8", "0.6", "96", "4", "26.8", "20.5", "6.25", "21"),
                List.of("server", "2.6", "0.01", "0.02", "1.15", "4", "–", "–", "–", "–"));
        assertThat(rows("run-counters")).as("what moved on either side; rcvd_seq_err stood still").containsExactly(
                List.of("hw_counters/completer_retry_err", "36", "–"),
                List.of("hw_counters/duplicate_request", "–", "576"),
                List.of("hw_counters/link_downed", "–", "1"),
                List.of("hw_counters/rcvd_pkts", "–", "10576"),
                List.of("hw_counters/sent_pkts", "10576", "–"));
        assertThat(browser.findElement(By.cssSelector("#run-counters tr[data-counter='hw_counters/link_downed'] td"))
                .getAttribute("class")).as("a warned counter stands out").isEqualTo("failed");
        screenshot("run-cost-warning");
        browser.executeScript("arguments[0].scrollIntoView()", browser.findElement(By.id("run-cost")));
        screenshot("run-cost");
    }

    private List<List<String>> rows(String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr")).stream()
                .map(row -> row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList()).toList();
    }

    @Test
    void aRunPageShowsWhatTheRunKeepsAndDeletingItsTraceKeepsEveryChart() throws Exception {
        long experiment = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 41, 1.0, "6.18.0-pages-41");
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        long intervals = jdbc.sql("SELECT count(*) FROM run_interval WHERE run_id = ?").param(runId).query(Long.class).single();
        assertThat(intervals).as("5,000 cycles 1 ms apart, in intervals of 100 ms").isEqualTo(50);
        assertThat(traceRows(runId)).isEqualTo(StoredExperiments.CYCLES);

        open("#/runs/" + runId);
        waiting(Duration.ofSeconds(20)).until(driver ->
                "stored".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));
        awaitCharts(Duration.ofSeconds(20), "runThroughput", "runCycleTime", "runPercentiles", "runDistribution");
        assertThat(browser.findElement(By.id("chart-run-percentiles")).isDisplayed()).isTrue();
        assertThat(browser.findElement(By.cssSelector("[data-chart='runPercentiles'] .chart-title")).getText())
                .isEqualTo("Cycle-time percentiles over time, all threads");
        assertPercentilesShowTheTimeline(runId);
        Map<String, List<Map<String, Double>>> throughput = points("runThroughput");
        Map<String, List<Map<String, Double>>> cycleTime = points("runCycleTime");
        Map<String, List<Map<String, Double>>> percentiles = points("runPercentiles");
        assertThat(throughput.get("thread 0").stream().mapToDouble(p -> p.get("cycles")).sum())
                .isEqualTo((double) StoredExperiments.CYCLES);

        Map<String, Object> usage = storage(runId);
        assertThat(part(usage, "intervals").get("rows")).isEqualTo(intervals);
        assertThat(part(usage, "trace").get("rows")).isEqualTo((long) StoredExperiments.CYCLES);
        String line = waiting(Duration.ofSeconds(20)).until(driver -> {
            String text = driver.findElement(By.cssSelector("#run-storage .storage-text")).getText();
            return text.isEmpty() ? null : text;
        });
        assertThat(line).isEqualTo(storageLine(usage, ""));
        assertThat(textContent("run-storage")).isEqualTo(line + "Intervals (CSV)" + "Delete trace");
        screenshot("run-storage");

        click(By.id("intervals-csv"));
        List<String> csv = Files.readAllLines(downloaded("run-" + runId + "-intervals.csv"));
        assertThat(csv.get(0)).startsWith("thread,interval,span,from [ns],to [ns],cycles,");
        assertThat(csv).hasSize(1 + (int) intervals);
        assertThat(csv.subList(1, csv.size()).stream().mapToLong(row -> Long.parseLong(row.split(",")[5])).sum())
                .as("cycles in the downloaded intervals").isEqualTo(StoredExperiments.CYCLES);

        // while the run counts as running the server refuses, and the page shows its words
        jdbc.sql("UPDATE run SET status = 'RUNNING' WHERE id = ?").param(runId).update();
        Map<String, Object> refused = http().delete().uri("/api/runs/{id}/trace", runId).exchange().expectStatus().isEqualTo(409)
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        click(By.id("delete-trace"));
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();
        String banner = waiting(Duration.ofSeconds(20)).until(driver -> {
            WebElement shown = driver.findElement(By.id("error-banner"));
            return shown.isDisplayed() ? shown.findElement(By.cssSelector(".banner-messages")).getText() : null;
        });
        assertThat(banner).isEqualTo("DELETE /api/runs/" + runId + "/trace failed: 409 " + refused.get("error"));
        assertThat(traceRows(runId)).isEqualTo(StoredExperiments.CYCLES);

        jdbc.sql("UPDATE run SET status = 'FINISHED' WHERE id = ?").param(runId).update();
        click(By.id("delete-trace"));
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.id("delete-trace")).isEmpty());
        assertThat(browser.findElement(By.id("error-banner")).isDisplayed()).as("the refusal's message is gone").isFalse();
        Map<String, Object> run = http().get().uri("/api/runs/{id}", runId).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(((Number) run.get("traceStored")).longValue()).isZero();
        assertThat(run.get("traceDeletedAt")).isNotNull();
        assertThat(((Number) run.get("cyclesStored")).longValue()).isEqualTo(StoredExperiments.CYCLES);
        assertThat(traceRows(runId)).isZero();
        Map<String, Object> after = storage(runId);
        assertThat(part(after, "intervals").get("rows")).isEqualTo(intervals);
        String deletedAt = OffsetDateTime.parse((String) run.get("traceDeletedAt")).atZoneSameInstant(ZoneId.systemDefault())
                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        assertThat(browser.findElement(By.cssSelector("#run-storage .storage-text")).getText())
                .isEqualTo(storageLine(after, "; deleted " + deletedAt)).contains("trace: 0 rows (0 B; deleted ");
        assertThat(textContent("run-storage")).isEqualTo(storageLine(after, "; deleted " + deletedAt) + "Intervals (CSV)");

        // opened again, every chart draws what it drew before: the intervals, not the trace
        open("#/experiments/" + experiment);
        open("#/runs/" + runId);
        waiting(Duration.ofSeconds(20)).until(driver ->
                "stored".equals(driver.findElement(By.id("live-state")).getAttribute("data-live")));
        awaitCharts(Duration.ofSeconds(20), "runThroughput", "runCycleTime", "runPercentiles", "runDistribution");
        assertThat(points("runThroughput")).isEqualTo(throughput);
        assertThat(points("runCycleTime")).isEqualTo(cycleTime);
        assertThat(points("runPercentiles")).isEqualTo(percentiles);
        assertThat(points("runDistribution").get("run #" + runId).stream().mapToDouble(p -> p.get("count")).sum())
                .isEqualTo((double) StoredExperiments.CYCLES);
        assertThat(browser.findElements(By.id("delete-trace"))).as("nothing left to delete").isEmpty();
        screenshot("run-trace-deleted");
    }

    @Test
    void theHostsPageShowsTheInventoryTheAgentsTheirDevicesAndADeployErrorAsTheServerWordsIt() throws Exception {
        jdbc.sql("""
                INSERT INTO agent (id, hostname, facts, connected, last_heartbeat)
                VALUES ('fixture-rdma-host', 'fixture-node1', CAST(? AS jsonb), false, now() - interval '42 seconds'),
                       ('fixture-tcp-host', 'fixture-node2', CAST(? AS jsonb), false, now() - interval '42 seconds')
                ON CONFLICT (id) DO UPDATE SET facts = excluded.facts, last_heartbeat = excluded.last_heartbeat""")
                .params(RDMA_DEVICE_FIXTURE, NO_RDMA_FIXTURE).update();
        http().delete().uri("/api/hosts/browser-host").exchange();

        open("#/hosts");
        WebElement form = waitFor(By.id("add-host"));
        form.findElement(By.name("name")).sendKeys("browser-host");
        form.findElement(By.name("address")).sendKeys("127.0.0.1");
        form.findElement(By.name("sshPort")).sendKeys("1");
        form.findElement(By.cssSelector("button")).click();
        WebElement host = waitFor(By.id("host-browser-host"));
        assertThat(host.getText()).contains("root@127.0.0.1:1").contains("ADDED").contains("disconnected").contains("never");
        WebElement rdma = waitFor(By.id("agent-fixture-rdma-host"));
        assertThat(rdma.getText()).contains("fixture-node1").contains("kernel 6.1.0-fixture").contains("Fixture CPU × 4")
                .contains("8 GiB memory").contains("rdma-core 44.0").containsPattern("last heartbeat \\d+ s ago");
        WebElement device = rdma.findElement(By.cssSelector(".device[data-device='rxe0']"));
        assertThat(device.findElement(By.cssSelector("tr[data-cap='max_qp'] td")).getText()).isEqualTo("1048560");
        assertThat(device.findElement(By.cssSelector("tr[data-cap='xrc'] td")).getText()).isEqualTo("no");
        assertThat(device.findElement(By.cssSelector("tr[data-cap='device_cap_flags'] td")).getText()).isEqualTo("0x00213c76");
        assertThat(device.findElement(By.cssSelector("tr[data-port='1']")).getText()).contains("ACTIVE").contains("Ethernet")
                .contains("1024").contains("[1] ::ffff:198.18.0.11 RoCE v2");
        assertThat(browser.findElement(By.cssSelector("#agent-fixture-tcp-host .rdma-unavailable")).getText())
                .isEqualTo("No RDMA device (rdma_unavailable): /sys/class/infiniband is empty: no RDMA driver is loaded");

        click(By.cssSelector("#host-browser-host button.host-deploy"));
        String shown = waiting(Duration.ofSeconds(60)).until(driver -> {
            String text = driver.findElement(By.cssSelector("#host-browser-host .host-error")).getText();
            return text.isEmpty() ? null : text;
        });
        Map<String, Object> failed = http().get().uri("/api/hosts/browser-host").exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(failed).containsEntry("state", "FAILED");
        assertThat(shown).as("the error exactly as the API gave it").isEqualTo(failed.get("detail"));
        waiting(Duration.ofSeconds(10)).until(driver ->
                "FAILED".equals(driver.findElement(By.id("host-browser-host")).getAttribute("data-state")));
        screenshot("hosts");
    }

    private long submit(String name, String threads) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"" + name + "\",\"base\":{\"msg_size\":64,\"iterations\":5},\"dimensions\":{\"threads\":" + threads + "}}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    /** Waits until the list shows exactly these experiments. */
    private void awaitRows(Set<Long> ids) {
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.cssSelector("#experiments tbody tr")).stream()
                .map(r -> Long.parseLong(r.getAttribute("id").replace("experiment-", ""))).collect(Collectors.toSet()).equals(ids));
    }

    /**
     * Per thread, the points' cycles and bytes add up to the thread's stored intervals, and y is their throughput;
     * the intervals count every cycle of the run's summary.
     */
    private void assertEveryStoredCycleIsDrawnOnce(long runId, Map<String, List<Map<String, Double>>> drawn) {
        Map<Integer, long[]> stored = new HashMap<>();
        jdbc.sql("SELECT thread, sum(cycles), sum(bytes) FROM run_interval WHERE run_id = ? GROUP BY thread").param(runId)
                .query((rs, i) -> stored.put(rs.getInt(1), new long[] {rs.getLong(2), rs.getLong(3)})).list();
        assertThat(stored).containsOnlyKeys(0, 1);
        assertThat(stored.values().stream().mapToLong(sums -> sums[0]).sum()).as("every cycle of the summary")
                .isEqualTo(summaryCycles(runId));
        stored.forEach((thread, sums) -> {
            List<Map<String, Double>> points = drawn.get("thread " + thread);
            assertThat(points.stream().mapToDouble(p -> p.get("cycles")).sum()).as("cycles of thread %d", thread).isEqualTo((double) sums[0]);
            assertThat(points.stream().mapToDouble(p -> p.get("bytes")).sum()).as("bytes of thread %d", thread).isEqualTo((double) sums[1]);
            for (Map<String, Double> p : points) {
                assertThat(p.get("y")).isCloseTo(p.get("bytes") * 8 / Math.max(1, p.get("lastEndNs") - p.get("firstStartNs")), offset(1e-9));
                assertThat(p.get("x")).isCloseTo(p.get("lastEndNs") / 1e9, offset(1e-12));
            }
        });
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> timeline(long runId) {
        return (List<Map<String, Object>>) timelineOf(runId).get("points");
    }

    /** The timeline as the run page asks for it (200 slots). */
    private Map<String, Object> timelineOf(long runId) {
        return http().get().uri("/api/runs/{id}/timeline?slots=200", runId).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    /**
     * The percentiles chart draws p50, p99 and p99.9 of every slot of the timeline, over all threads, at the slot's
     * end, in µs on a log axis; the slots count every cycle of the run.
     */
    @SuppressWarnings("unchecked")
    private void assertPercentilesShowTheTimeline(long runId) {
        List<Map<String, Object>> slots = (List<Map<String, Object>>) timelineOf(runId).get("percentiles");
        assertThat(slots).isNotEmpty();
        assertThat(slots.stream().mapToLong(slot -> ((Number) slot.get("cycles")).longValue()).sum())
                .as("every cycle of the run is in a slot").isEqualTo(summaryCycles(runId));
        assertThat(labels("runPercentiles")).containsExactly("p50", "p99", "p99.9");
        Map<String, List<Map<String, Double>>> drawn = points("runPercentiles");
        Map<String, String> fields = Map.of("p50", "medianCycleNs", "p99", "p99CycleNs", "p99.9", "p999CycleNs");
        fields.forEach((label, field) -> {
            List<Map<String, Double>> points = drawn.get(label);
            assertThat(points).as("%s: one point per slot", label).hasSize(slots.size());
            for (int i = 0; i < slots.size(); i++) {
                Map<String, Object> slot = slots.get(i);
                assertThat(points.get(i).get("x")).as("%s slot %d", label, i)
                        .isEqualTo(((Number) slot.get("toNs")).doubleValue() / 1e9);
                if (((Number) slot.get("cycles")).longValue() == 0) {
                    assertThat(points.get(i)).as("%s slot %d has no cycles: nothing to draw on a log axis", label, i)
                            .doesNotContainKey("y");
                    continue;
                }
                assertThat(points.get(i).get("y")).as("%s slot %d (µs)", label, i)
                        .isCloseTo(((Number) slot.get(field)).doubleValue() / 1000, offset(1e-9));
            }
        });
        assertThat(axis("runPercentiles", "y")).containsEntry("type", "logarithmic").containsEntry("title", "Cycle time (µs, log)");
        assertThat(axis("runPercentiles", "x")).containsEntry("title", "Time since the run started (s)");
    }

    /** The series labels of a chart, in the order its legend shows them; none while it is not drawn. */
    @SuppressWarnings("unchecked")
    private List<String> labels(String chart) {
        return (List<String>) browser.executeScript("""
                const chart = window.qplabCharts && window.qplabCharts[arguments[0]];
                return chart ? chart.data.datasets.map(d => d.label) : [];""", chart);
    }

    /** All the text of an element and its children, as the page holds it (no separators between them). */
    private String textContent(String id) {
        return (String) browser.executeScript("return document.getElementById(arguments[0]).textContent", id);
    }

    private long summaryCycles(long runId) {
        return jdbc.sql("SELECT cycles FROM run_summary WHERE run_id = ?").param(runId).query(Long.class).single();
    }

    private long traceRows(long runId) {
        return jdbc.sql("SELECT count(*) FROM run_trace WHERE run_id = ?").param(runId).query(Long.class).single();
    }

    private Map<String, Object> storage(long runId) {
        return http().get().uri("/api/runs/{id}/storage", runId).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Long> part(Map<String, Object> usage, String name) {
        Map<String, Number> part = (Map<String, Number>) usage.get(name);
        return Map.of("rows", part.get("rows").longValue(), "bytes", part.get("bytes").longValue());
    }

    /** The storage line as the page words it: rows with thousands separators, bytes in binary units. */
    private static String storageLine(Map<String, Object> usage, String traceNote) {
        Map<String, Long> intervals = part(usage, "intervals");
        Map<String, Long> trace = part(usage, "trace");
        Map<String, Long> histogram = part(usage, "histogram");
        return String.format(Locale.ENGLISH, "Stored: %,d %s (%s), trace: %,d %s (%s%s), histogram: %,d %s (%s); %s in all.",
                intervals.get("rows"), intervals.get("rows") == 1 ? "interval" : "intervals", bytes(intervals.get("bytes")),
                trace.get("rows"), trace.get("rows") == 1 ? "row" : "rows", bytes(trace.get("bytes")), traceNote,
                histogram.get("rows"), histogram.get("rows") == 1 ? "row" : "rows", bytes(histogram.get("bytes")),
                bytes(((Number) usage.get("totalBytes")).longValue()));
    }

    /** 1536 → "1.5 KiB": three significant digits in the largest binary unit the value reaches. */
    private static String bytes(long value) {
        String[] units = {"B", "KiB", "MiB", "GiB"};
        double scaled = value;
        int unit = 0;
        while (scaled >= 1024 && unit < units.length - 1) {
            scaled /= 1024;
            unit++;
        }
        String digits = scaled == 0 ? "0"
                : new BigDecimal(scaled).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        return digits + " " + units[unit];
    }
}
