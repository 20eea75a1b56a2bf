package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** FioDump against Jackson's reading of every dump of the lab's fixtures, and on text fio does not print. */
class FioDumpTests {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private static List<String> dumps(String name) throws IOException {
        return FioOutputTests.dumpTexts(FioOutputTests.fixture(name));
    }

    private static FioDump read(String dump) {
        byte[] bytes = dump.getBytes(StandardCharsets.UTF_8);
        return FioDump.read(bytes, bytes.length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"randread-4k-qd16-rdma.json", "randrw70-8k-qd4-nj2-size-rdma.json"})
    void readsWhatJacksonReadsFromEveryDump(String fixture) throws IOException {
        for (String text : dumps(fixture)) {
            JsonNode dump = JSON.readTree(text);
            TreeMap<Long, Long> bins = new TreeMap<>();
            long bytes = 0;
            long runtime = 0;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (JsonNode job : dump.path("jobs")) {
                for (String d : List.of("read", "write", "trim")) {
                    JsonNode dir = job.path(d);
                    bytes += dir.path("io_bytes").asLong();
                    runtime = Math.max(runtime, dir.path("runtime").asLong());
                    JsonNode clat = dir.path("clat_ns");
                    if (clat.path("N").asLong() > 0) {
                        min = Math.min(min, clat.path("min").asLong());
                        max = Math.max(max, clat.path("max").asLong());
                    }
                    for (Map.Entry<String, JsonNode> bin : clat.path("bins").properties()) {
                        bins.merge(Long.parseLong(bin.getKey()), bin.getValue().asLong(), Long::sum);
                    }
                }
            }
            FioDump read = read(text);

            TreeMap<Long, Long> got = new TreeMap<>();
            for (int i = 0; i < read.bins; i++) {
                got.put(read.binNs[i], read.binCount[i]);
                if (i > 0) {
                    assertThat(read.binNs[i]).as("ascending").isGreaterThan(read.binNs[i - 1]);
                }
            }
            assertThat(got).isEqualTo(bins);
            assertThat(read.bytes).isEqualTo(bytes);
            assertThat(read.runtimeMs).isEqualTo(runtime);
            assertThat(read.clatMin).isEqualTo(min);
            assertThat(read.clatMax).isEqualTo(max);
            assertThat(read.timestampMs).isEqualTo(dump.path("timestamp_ms").asLong());
            assertThat(read.errors).isZero();
        }
    }

    @Test
    void mergesReadAndWriteBinsOfOneLatencyAndCountsTotalErr() {
        FioDump read = read("""
                {"timestamp_ms": 5, "jobs": [{"total_err": 2, "job options": {"runtime": "9"},
                  "read": {"io_bytes": 10, "runtime": 3, "clat_ns": {"N": 3, "min": 90, "max": 300,
                    "percentile": {"99.000000": 300}, "bins": {"100": 1, "300": 2}}},
                  "write": {"io_bytes": 20, "runtime": 4, "clat_ns": {"N": 2, "min": 50, "max": 200,
                    "bins": {"50": 1, "100": 1}}},
                  "trim": {"io_bytes": 0, "runtime": 0, "clat_ns": {"N": 0, "min": 0, "max": 0}},
                  "sync": {"total_ios": 7, "lat_ns": {"N": 7, "bins": {"1": 7}}}}],
                 "disk_util": [{"name": "nvme0n1", "read_ios": 99}]}
                """);
        assertThat(read.bins).isEqualTo(3);
        assertThat(read.binNs).startsWith(50L, 100L, 300L);
        assertThat(read.binCount).startsWith(1L, 2L, 2L);
        assertThat(read.bytes).isEqualTo(30);
        assertThat(read.runtimeMs).as("the longest direction, not job options' string").isEqualTo(4);
        assertThat(read.errors).isEqualTo(2);
        assertThat(read.clatMin).as("trim had no I/O").isEqualTo(50);
        assertThat(read.clatMax).isEqualTo(300);
        assertThat(read.timestampMs).isEqualTo(5);
    }

    @Test
    void onlyClatBinsCountNotLatOrSlatBinsNorALongNumberItSkips() {
        FioDump read = read("""
                {"jobs": [{"eta": 12345678901234567890123, "read": {"io_bytes": 8,
                  "slat_ns": {"N": 5, "min": 1, "max": 2, "bins": {"1": 5}},
                  "clat_ns": {"N": 2, "min": 10, "max": 20, "bins": {"10": 1, "20": 1}},
                  "lat_ns": {"N": 2, "min": 11, "max": 21, "bins": {"11": 1, "21": 1}}}}]}
                """);
        assertThat(read.bins).isEqualTo(2);
        assertThat(read.binNs).startsWith(10L, 20L);
        assertThat(read.binCount).startsWith(1L, 1L);
        assertThat(read.clatMin).isEqualTo(10);
        assertThat(read.clatMax).isEqualTo(20);
        assertThatThrownBy(() -> read("{\"timestamp_ms\": 1234567890123456789}"))
                .hasMessage("a number longer than 18 digits at byte 17");
    }

    @Test
    void refusesWhatFioDoesNotPrintNamingTheByte() {
        assertThatThrownBy(() -> read("{\"jobs\": [}")).hasMessage("a '}' that closes nothing open at byte 10");
        assertThatThrownBy(() -> read("{\"jobs\": [{\"read\": {\"clat_ns\": {\"bins\": {\"1x\": 1}}}}]}"))
                .hasMessageStartingWith("a clat bin that is not a number of ns at byte ");
        assertThatThrownBy(() -> read("{\"jobs\": [{\"read\": {\"clat_ns\": {\"bins\": {\"20\": 1, \"10\": 1}}}}]}"))
                .hasMessageStartingWith("clat bins out of order (10 ns after 20 ns) at byte ");
        assertThatThrownBy(() -> read("{\"jobs\": \"x}")).hasMessage("a string that does not end at byte 9");
        assertThatThrownBy(() -> read("{\"a\": 1} {")).hasMessage("text after the dump's end at byte 9");
        assertThatThrownBy(() -> read("{\"a\": [1, 2")).hasMessage("the dump ends with 2 brackets open at byte 11");
        assertThatThrownBy(() -> read("{\"a\": -x}")).hasMessage("a number fio does not print at byte 6");
        assertThatThrownBy(() -> read("{\"a\": @}")).hasMessage("an unexpected '@' at byte 6");
    }
}
