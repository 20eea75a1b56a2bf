package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.qplab.controller.StoredNvmeofRuns;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * An nvmeof experiment in the dashboard (its fio summaries stored as an initiator reports them): the experiment
 * page draws IOPS vs iodepth, latency percentiles vs IOPS and bandwidth vs block size, one series per transport
 * and rw, with their units on the axes and each point the runs' own numbers; no message-size or cycle-time
 * chart; the run page shows fio's numbers.
 */
class NvmeofBrowserIntegrationTests extends BrowserTest {

    private static final List<String> SERIES = List.of("local randread", "local randwrite");

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void anNvmeofExperimentsStorageChartsShowItsIopsLatencyAndBandwidthWithUnits() throws Exception {
        long id = new StoredNvmeofRuns(http(), jdbc, ingest, outcomes).create("""
                name: nvmeof-browser-test
                base: {provider: nvmeof, transport: local, runtime_ms: 1000}
                dimensions: {rw: [randread, randwrite], iodepth: [1, 16], bs: [4K, 64K]}
                """);
        open("#/experiments/" + id);
        awaitCharts(Duration.ofSeconds(30), "iopsVsIodepth", "latencyVsIops", "bandwidthVsBs");

        assertThat(axis("iopsVsIodepth", "x")).containsEntry("type", "logarithmic")
                .containsEntry("title", "iodepth (I/Os in flight per job, log2)");
        assertThat(axis("iopsVsIodepth", "y")).containsEntry("type", "linear")
                .containsEntry("title", "IOPS (thousands of I/Os per second)").containsEntry("beginAtZero", true);
        var byDepth = drawn("iopsVsIodepth");
        assertThat(byDepth).containsOnlyKeys(SERIES);
        for (String rw : List.of("randread", "randwrite")) {
            List<List<Double>> line = byDepth.get("local " + rw);
            assertThat(line).extracting(p -> p.get(0)).containsExactly(1.0, 16.0);
            for (List<Double> point : line) {
                long iodepth = point.get(0).longValue();
                double kiops = iops(rw, 4096, iodepth) / 1e3; // one configuration: bs pinned at its first value
                assertThat(point.get(1)).as("%s at iodepth %d, kIOPS", rw, iodepth).isCloseTo(kiops, within(1e-9));
            }
        }
        assertThat(browser.findElement(By.cssSelector("[data-chart=iopsVsIodepth] .pin-note")).getText()).isEqualTo("at bs = 4 KiB");
        assertThat(new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("pin-bs"))).getFirstSelectedOption()
                .getAttribute("value")).isEqualTo("4096");

        assertThat(axis("bandwidthVsBs", "x")).containsEntry("type", "logarithmic")
                .containsEntry("title", "Block size (bytes, log2)");
        assertThat(axis("bandwidthVsBs", "y")).containsEntry("title", "Bandwidth (MiB/s)");
        List<List<Double>> reads = drawn("bandwidthVsBs").get("local randread");
        assertThat(reads).extracting(p -> p.get(0)).containsExactly(4096.0, 65536.0);
        assertThat(reads.get(1).get(1)).as("randread at 64 KiB, MiB/s (iodepth pinned at 1)")
                .isCloseTo(iops("randread", 65536, 1) * 65536 / (1 << 20), within(1e-9));
        assertThat(browser.findElement(By.cssSelector("[data-chart=bandwidthVsBs] .pin-note")).getText()).isEqualTo("at iodepth = 1");

        assertThat(axis("latencyVsIops", "x")).containsEntry("type", "linear")
                .containsEntry("title", "IOPS (I/Os per second; each point one matrix point)");
        assertThat(axis("latencyVsIops", "y")).containsEntry("type", "logarithmic")
                .containsEntry("title", "Completion latency (µs, log)");
        var latency = drawn("latencyVsIops");
        assertThat(latency).containsOnlyKeys("local randread · typical", "local randread · p99", "local randread · p99.9",
                "local randwrite · typical", "local randwrite · p99", "local randwrite · p99.9");
        List<List<Double>> p99 = latency.get("local randwrite · p99");
        assertThat(p99).as("one point per configuration along iodepth, bs pinned at 4 KiB").hasSize(2);
        double x = iops("randwrite", 4096, 16);
        assertThat(p99).as("randwrite, iodepth 16, 4 KiB: [its IOPS, its p99 in µs]").anySatisfy(point -> {
            assertThat(point.get(0)).isCloseTo(x, within(1e-6));
            assertThat(point.get(1)).isCloseTo(StoredNvmeofRuns.p99("local", "randwrite", 4096, 16, 0), within(1e-6));
        });

        assertThat(browser.findElements(By.cssSelector("#runs thead th")).stream().map(WebElement::getText).toList())
                .as("the runs table names what a fio run counts").contains("IOPS (k)", "I/O time p99 (µs)")
                .doesNotContain("Msg rate (Mmsg/s)", "Cycle p99 (µs)");
        assertThat(browser.findElement(By.cssSelector("[data-chart=bandwidthVsSize]")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.cssSelector("[data-chart=cyclePercentiles]")).isDisplayed()).isFalse();
        screenshot("nvmeof-curves");

        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ? AND params->>'rw' = 'randread' "
                + "AND (params->>'iodepth')::int = 16 AND (params->>'bs')::int = 4096").param(id).query(Long.class).single();
        open("#/runs/" + runId);
        WebElement table = waitFor(By.id("run-fio"));
        assertThat(table.findElements(By.cssSelector("thead th")).stream().map(WebElement::getText).toList())
                .containsExactly("", "IOPS (I/O/s)", "BW (MiB/s)", "clat min (µs)", "clat p50 (µs)", "clat p99 (µs)",
                        "clat p99.9 (µs)", "clat max (µs)", "I/Os");
        List<String> all = table.findElements(By.cssSelector("tbody tr:first-child td")).stream().map(WebElement::getText).toList();
        assertThat(all.get(0)).isEqualTo("all I/Os");
        assertThat(Double.parseDouble(all.get(1))).as("IOPS to 3 digits").isCloseTo(iops("randread", 4096, 16),
                within(iops("randread", 4096, 16) * 0.005));
        assertThat(all.get(8)).isEqualTo(String.valueOf(StoredNvmeofRuns.IOS));
        String numbers = browser.findElement(By.cssSelector("#run-numbers thead")).getText();
        assertThat(numbers).as("the numbers table names I/Os, not messages or cycles").contains("I/Os", "IOPS (k)",
                "I/O time (µs)").doesNotContain("msg rate", "cycle");
        assertThat(browser.findElements(By.cssSelector("#run-numbers tbody tr:first-child td")).get(1).getText())
                .isEqualTo(String.format("%,d", StoredNvmeofRuns.IOS));
        assertThat(browser.findElement(By.id("run-fio-where")).getText()).contains("/dev/nvme0n1").contains("transport local")
                .contains("randread").contains("bs 4 KiB").contains("iodepth 16");
        screenshot("nvmeof-run");
    }

    private static double iops(String rw, long bs, long iodepth) {
        return StoredNvmeofRuns.iops("local", rw, bs, iodepth, 0);
    }
}
