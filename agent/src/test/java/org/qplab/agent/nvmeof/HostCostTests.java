package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HostCost on a fake sysfs and /proc: the counters' deltas, and warnings for the engine's list of them. */
class HostCostTests {

    @Test
    void warnsAboutTheCountersTheEngineWarnsAboutAndOnlyThose(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm2");
        Path port = FakeHost.mkdirs(root.resolve("sys/class/infiniband/rxe0/ports/1"));
        FakeHost.mkdirs(port.resolve("hw_counters"));
        FakeHost.mkdirs(port.resolve("counters"));
        Files.writeString(port.resolve("hw_counters/duplicate_request"), "5\n");
        Files.writeString(port.resolve("hw_counters/rcvd_seq_err"), "7\n");
        Files.writeString(port.resolve("hw_counters/sent_pkts"), "100\n");
        Files.writeString(port.resolve("counters/port_rcv_errors"), "0\n");
        Files.writeString(root.resolve("proc/stat"), "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n");
        HostCost cost = new HostCost(host, "rdma", "rxe0");
        cost.begin();
        Files.writeString(port.resolve("hw_counters/duplicate_request"), "8\n");
        Files.writeString(port.resolve("hw_counters/sent_pkts"), "250\n");
        Files.writeString(port.resolve("counters/port_rcv_errors"), "1\n");
        Files.writeString(root.resolve("proc/stat"), "cpu  150 0 150 900 0 0 0 0 0 0\ncpu0 150 0 150 900 0 0 0 0 0 0\n");
        cost.end();

        Map<String, Object> summary = new LinkedHashMap<>();
        cost.put(summary, null);
        assertThat(summary.get("warnings")).as("retransmission and error counters that moved; sent_pkts is traffic")
                .asList().containsExactly("counters/port_rcv_errors moved by 1", "hw_counters/duplicate_request moved by 3");
        @SuppressWarnings("unchecked")
        Map<String, Object> counters = (Map<String, Object>) summary.get("counters");
        assertThat(counters).containsEntry("device", "rxe0").containsEntry("port", 1);
        assertThat(counters.get("deltas")).isEqualTo(Map.of("counters/port_rcv_errors", 1L,
                "hw_counters/duplicate_request", 3L, "hw_counters/rcvd_seq_err", 0L, "hw_counters/sent_pkts", 150L));
    }
}
