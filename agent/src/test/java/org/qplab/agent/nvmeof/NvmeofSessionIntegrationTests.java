package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.protocol.Interval;
import tools.jackson.databind.json.JsonMapper;

/**
 * A local nvmeof run (the host's fio, from PATH, on a backing file) on a fake host's /proc: what its summary says the
 * run cost, measured by the engine (HostCost) over the fake /proc/stat and /proc/net/snmp, with fio's own CPU beside.
 */
class NvmeofSessionIntegrationTests {

    private static final Optional<Path> FIO = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .map(dir -> Path.of(dir, "fio")).filter(Files::isExecutable).findFirst();
    private static final String SNMP = """
            Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs \
            OutSegs RetransSegs InErrs OutRsts InCsumErrors
            Tcp: 1 200 120000 -1 10 5 0 0 3 1000 900 %d 0 2 0
            """;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @Test
    void aLocalRunsSummaryCarriesTheHostsCostInTheEnginesKeys(@TempDir Path root) throws Exception {
        Assumptions.assumeTrue(FIO.isPresent(), "fio is not installed (apt-get install fio): the run runs it");
        NvmeofHost fake = FakeHost.of(root, "vm1");
        Path file = root.resolve("data.img");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(16L << 20);
        }
        NvmeofHost host = new NvmeofHost(fake.agentId(), List.of(file.toString()), fake.dataAddress(), fake.configfs(),
                fake.sysfs(), fake.proc(), fake.dev(), fake.locks());
        Files.createDirectories(root.resolve("proc/net"));
        Files.writeString(root.resolve("proc/net/snmp"), SNMP.formatted(40));
        Files.writeString(root.resolve("proc/stat"), "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n");
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("provider", "nvmeof");
        params.put("role", "loopback");
        params.put("transport", "local");
        params.put("backing", "file");
        params.put("backing_path", file.toString());
        params.put("direct", false);
        params.put("runtime_ms", 1000L);
        params.put("interval_ms", 200L);

        Map<String, Object> summary;
        try (NvmeofSession session = NvmeofSession.create(7, params, host)) {
            session.start();
            // while fio runs: the host's CPU and TCP counters move
            Files.writeString(root.resolve("proc/net/snmp"), SNMP.formatted(43));
            Files.writeString(root.resolve("proc/stat"), "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 150 0 150 900 0 0 0 0 0 0\n");
            List<Interval> intervals = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!session.awaitEnd(Duration.ofMillis(100)) && System.nanoTime() < deadline) {
                session.drainIntervals(intervals);
            }
            summary = map(JsonMapper.builder().build().readValue(session.summaryJson(), LinkedHashMap.class));
        }

        assertThat(summary).containsEntry("provider", "nvmeof").containsEntry("side", "local").doesNotContainKey("error");
        Map<String, Object> cpu = map(summary.get("cpu"));
        assertThat(cpu.keySet()).as("the engine summary's cpu keys, then fio's").containsExactly("span_ns",
                "engine_user_ns", "engine_sys_ns", "engine_util_pct", "host_cpus", "host_user_pct", "host_sys_pct",
                "host_util_pct", "perftest_util_pct", "fio_usr_pct", "fio_sys_pct");
        assertThat(((Number) cpu.get("span_ns")).longValue()).as("start to fio's end").isGreaterThan(900_000_000L);
        assertThat(Arrays.asList(cpu.get("engine_user_ns"), cpu.get("engine_sys_ns"), cpu.get("engine_util_pct")))
                .as("no engine thread ran it").containsOnlyNulls();
        assertThat(cpu).containsEntry("host_cpus", 1);
        assertThat(((Number) cpu.get("host_util_pct")).doubleValue()).as("100 of 200 ticks busy").isEqualTo(50.0);
        Map<String, Object> counters = map(summary.get("counters"));
        assertThat(counters).containsEntry("source", "/proc/net/snmp").containsEntry("error", null);
        assertThat(map(counters.get("deltas"))).containsEntry("Tcp.RetransSegs", 3).containsEntry("Tcp.InSegs", 0);
        assertThat(summary.get("warnings")).asList().containsExactly("Tcp.RetransSegs moved by 3 (host-wide)");
    }
}
