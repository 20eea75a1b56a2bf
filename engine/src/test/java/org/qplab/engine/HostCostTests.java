package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * HostCost on fake /proc and /sys/class/infiniband trees: what a run's summary shows of it ("cpu", "counters",
 * "warnings"), read and written by the engine's C code.
 */
class HostCostTests {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final String SNMP = """
            Ip: Forwarding DefaultTTL
            Ip: 1 64
            Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs \
            OutSegs RetransSegs InErrs OutRsts InCsumErrors
            Tcp: 1 200 120000 -1 %d 5 0 0 3 %d 900 %d 0 2 0
            """;

    @TempDir
    Path root;

    private HostCost.Roots roots() {
        return new HostCost.Roots(root.resolve("proc"), root.resolve("sys/class/infiniband"));
    }

    private void write(String relative, String text) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> summary(String json) {
        return JSON.readValue(json, LinkedHashMap.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @Test
    void warnsAboutTheCountersTheEngineWarnsAboutAndOnlyThose() throws Exception {
        String port = "sys/class/infiniband/rxe0/ports/1/";
        write(port + "hw_counters/duplicate_request", "5\n");
        write(port + "hw_counters/rcvd_seq_err", "7\n");
        write(port + "hw_counters/sent_pkts", "100\n");
        write(port + "counters/port_rcv_errors", "0\n");
        write("proc/stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n");
        Map<String, Object> summary;
        try (HostCost cost = HostCost.rdma("rxe0", "198.18.0.11", roots())) {
            write(port + "hw_counters/duplicate_request", "8\n");
            write(port + "hw_counters/sent_pkts", "250\n");
            write(port + "counters/port_rcv_errors", "1\n");
            write("proc/stat", "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 150 0 150 900 0 0 0 0 0 0\n");
            cost.end();
            summary = summary(cost.json());
        }

        assertThat(summary).containsOnlyKeys("cpu", "counters", "warnings");
        assertThat(summary.get("warnings")).as("retransmission and error counters that moved; sent_pkts is traffic")
                .asList().containsExactly("counters/port_rcv_errors moved by 1", "hw_counters/duplicate_request moved by 3");
        Map<String, Object> counters = map(summary.get("counters"));
        assertThat(counters).containsEntry("source", "sysfs").containsEntry("device", "rxe0").containsEntry("port", 1)
                .containsEntry("unreadable", List.of()).containsEntry("error", null);
        assertThat(counters.get("deltas")).isEqualTo(Map.of("counters/port_rcv_errors", 1,
                "hw_counters/duplicate_request", 3, "hw_counters/rcvd_seq_err", 0, "hw_counters/sent_pkts", 150));
        Map<String, Object> cpu = map(summary.get("cpu"));
        assertThat(cpu.keySet()).as("the engine summary's keys, in its order").containsExactly("span_ns", "engine_user_ns",
                "engine_sys_ns", "engine_util_pct", "host_cpus", "host_user_pct", "host_sys_pct", "host_util_pct",
                "perftest_util_pct");
        assertThat(((Number) cpu.get("span_ns")).longValue()).isPositive();
        assertThat(Arrays.asList(cpu.get("engine_user_ns"), cpu.get("engine_sys_ns"), cpu.get("engine_util_pct")))
                .as("no engine thread ran the span").containsOnlyNulls();
        assertThat(cpu).containsEntry("host_cpus", 1);
        assertThat(List.of("host_util_pct", "host_user_pct", "host_sys_pct").stream()
                .map(k -> ((Number) cpu.get(k)).doubleValue())).as("100 of 200 ticks busy, 50 user, 50 system")
                .containsExactly(50.0, 25.0, 25.0);
        assertThat(((Number) cpu.get("perftest_util_pct")).doubleValue()).as("user / (user + idle)")
                .isBetween(33.33, 33.34);
    }

    @Test
    void findsThePortWhoseGidIsOnTheAddressesInterface() throws Exception {
        String ib = "sys/class/infiniband/";
        write(ib + "mlx5_0/ports/1/gid_attrs/ndevs/0", "eth9\n");
        write(ib + "rxe0/ports/1/gid_attrs/ndevs/0", "lo\n");
        write(ib + "rxe0/ports/1/hw_counters/rcvd_pkts", "10\n");
        try (HostCost cost = HostCost.rdma("", "127.0.0.1", roots())) {
            write(ib + "rxe0/ports/1/hw_counters/rcvd_pkts", "15\n");
            cost.end();
            Map<String, Object> counters = map(summary(cost.json()).get("counters"));
            assertThat(counters).containsEntry("device", "rxe0").containsEntry("port", 1)
                    .containsEntry("deltas", Map.of("hw_counters/rcvd_pkts", 5));
        }
        try (HostCost cost = HostCost.rdma("", "192.0.2.1", roots())) {
            cost.end();
            Map<String, Object> summary = summary(cost.json());
            assertThat(map(summary.get("counters"))).as("no port: the counters say why, the run goes on")
                    .doesNotContainKeys("device", "port")
                    .containsEntry("error", "no network interface has the address 192.0.2.1");
            assertThat(summary.get("warnings")).asList().isEmpty();
        }
    }

    @Test
    void tcpCountersAreHostWide() throws Exception {
        write("proc/net/snmp", SNMP.formatted(10, 1000, 2));
        try (HostCost cost = HostCost.tcp(roots())) {
            write("proc/net/snmp", SNMP.formatted(12, 3000, 9));
            cost.end();
            Map<String, Object> summary = summary(cost.json());
            Map<String, Object> counters = map(summary.get("counters"));
            assertThat(counters).containsEntry("source", "/proc/net/snmp").doesNotContainKey("device");
            assertThat(map(counters.get("deltas"))).containsEntry("Tcp.ActiveOpens", 2).containsEntry("Tcp.InSegs", 2000)
                    .doesNotContainKeys("Tcp.CurrEstab", "Tcp.MaxConn");
            assertThat(summary.get("warnings")).asList().containsExactly("Tcp.RetransSegs moved by 7 (host-wide)");
            assertThat(map(summary.get("cpu"))).as("no /proc/stat in this tree").containsEntry("host_util_pct", null);
        }
    }

    @Test
    void aSpanNotEndedOrNeverBegunSaysSo() throws Exception {
        write("sys/class/infiniband/rxe0/ports/1/hw_counters/send_err", "1\n");
        HostCost cost = HostCost.rdma("rxe0", null, roots());
        Map<String, Object> summary = summary(cost.json());
        assertThat(map(summary.get("cpu"))).containsEntry("span_ns", 0).containsEntry("host_util_pct", null);
        assertThat(map(summary.get("counters"))).containsEntry("unreadable", List.of("hw_counters/send_err"))
                .containsEntry("error", "no reading after the run");
        cost.close(); // never ended: freed all the same
        cost.close();
        assertThatThrownBy(cost::json).isInstanceOf(IllegalStateException.class);

        Map<String, Object> never = summary(HostCost.neverBegun());
        assertThat(never).containsEntry("counters", null).containsEntry("warnings", List.of());
        List<Object> figures = new ArrayList<>(map(never.get("cpu")).values());
        assertThat(figures).containsExactly(0, null, null, null, 0, null, null, null, null);
    }

    @Test
    void anInvalidSpecIsRefusedInTheEnginesWords() {
        assertThatThrownBy(() -> HostCost.begin("{\"counters\":\"sysfs\"}")).isInstanceOf(EngineException.class)
                .hasMessageContaining("qpb_cost_begin").hasMessageContaining("needs a device or an address");
        assertThatThrownBy(() -> HostCost.rdma("../etc", null, roots())).isInstanceOf(EngineException.class)
                .hasMessageContaining("device must be a device name");
    }
}
