package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

/**
 * nvmeof points in a matrix: fio's defaults written in (transport rdma, not verbs' rc), transport local as a
 * loopback run on each pair's server (the target), rdma/tcp refused on loopback hosts, and what connected hosts
 * say they lack (their hello's nvmeof facts) refused naming the host and the piece.
 */
class NvmeofMatrixTests {


    /** vm1 lacks nvmet-rdma (cannot be an rdma target) and lists one backing file; vm2 can do all; vm3 is offline. */
    private static final Map<String, Map<String, Object>> CONNECTED = Map.of(
            "vm1", Map.of("hostname", "vm1", "nvmeof", Map.of("backing_paths", List.of("/srv/a.img"), "missing", Map.of(
                    "target", Map.of("rdma", List.of("module nvmet-rdma"), "tcp", List.of(), "local", List.of()),
                    "initiator", Map.of("rdma", List.of(), "tcp", List.of())))),
            "vm2", Map.of("hostname", "vm2", "nvmeof", Map.of("backing_paths", List.of(), "missing", Map.of(
                    "target", Map.of("rdma", List.of(), "tcp", List.of(), "local", List.of()),
                    "initiator", Map.of("rdma", List.of(), "tcp", List.of())))),
            "old", Map.of("hostname", "old"),
            // no null_blk and no configfs: a local run on a listed device is possible, one on null_blk is not
            "bare", Map.of("hostname", "bare", "nvmeof", Map.of("backing_paths", List.of("/dev/sdb"), "missing", Map.of(
                    "target", Map.of("rdma", List.of("configfs", "module null_blk"), "tcp", List.of("configfs",
                            "module null_blk"), "local", List.of("configfs", "module null_blk")),
                    "initiator", Map.of("rdma", List.of(), "tcp", List.of())))));
    private final YamlMatrices matrices = YamlMatrices.withHosts(CONNECTED::get);

    @Test
    void nvmeofPointsGetFiosDefaultsNotTheEnginesOrVerbsTransport() {
        Matrix matrix = matrices.expand("""
                name: n
                base: {provider: nvmeof}
                hosts: {pairs: [[vm2, vm3]]}
                """);
        assertThat(matrix.runs()).singleElement().satisfies(run -> {
            assertThat(run.params()).containsEntry("transport", "rdma").containsEntry("rw", "randread")
                    .containsEntry("bs", 4096L).containsEntry("iodepth", 1L).containsEntry("numjobs", 1L)
                    .containsEntry("ioengine", "io_uring").doesNotContainKeys("op", "mode", "threads", "qps_per_thread");
            assertThat(run.client()).isEqualTo("vm2");
            assertThat(run.server()).isEqualTo("vm3");
        });
    }

    @Test
    void transportLocalRunsOnEachPairsServerOnceAsALoopbackRun() {
        Matrix matrix = matrices.expand("""
                name: n
                base: {provider: nvmeof}
                dimensions: {transport: [tcp, local]}
                hosts: {group: [vm2, vm3, vm4]}
                """);
        assertThat(matrix.runs()).filteredOn(r -> r.params().get("transport").equals("tcp"))
                .extracting(r -> r.client() + ">" + r.server()).as("in rounds of pairs that share no host")
                .containsExactly("vm3>vm4", "vm2>vm3", "vm2>vm4");
        assertThat(matrix.runs()).filteredOn(r -> r.params().get("transport").equals("local"))
                .extracting(r -> r.client() + ">" + r.server()).containsExactlyInAnyOrder("vm3>null", "vm4>null");
    }

    @Test
    void rdmaAndTcpNeedAPairLocalDoesNot() {
        assertThat(matrices.violationsOf("""
                name: n
                base: {provider: nvmeof}
                dimensions: {transport: [rdma, local]}
                hosts: {loopback: [vm2]}
                """)).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("transport");
            assertThat(v.message()).contains("pair run").contains("transport local");
        });
        assertThat(matrices.expand("name: n\nbase: {provider: nvmeof, transport: local}\nhosts: {loopback: [vm2]}\n").runs())
                .singleElement().satisfies(r -> assertThat(r.client()).isEqualTo("vm2"));
    }

    @Test
    void verbsKeepsRcAsItsDefaultTransport() {
        Map<String, Object> params = matrices.expand("name: v\nbase: {provider: verbs, msg_size: 64, iterations: 10}\n")
                .runs().get(0).params();
        assertThat(params).containsEntry("transport", "rc").containsEntry("op", "send").doesNotContainKey("iodepth");
    }

    @Test
    void aConnectedHostMissingAPieceIsRefusedNamingHostAndPieceAnOfflineOneIsNotChecked() {
        List<Violation> violations = matrices.violationsOf("""
                name: n
                base: {provider: nvmeof}
                dimensions: {transport: [rdma, tcp]}
                hosts: {pairs: [[vm2, vm1], [vm1, vm3], [vm3, old]]}
                """);
        assertThat(violations).extracting(Violation::field).containsOnly("hosts");
        assertThat(violations).extracting(Violation::message).containsExactlyInAnyOrder(
                "server vm1 cannot be an NVMe-oF target over rdma: missing module nvmet-rdma",
                "server old cannot be an NVMe-oF target over rdma: its agent reports no NVMe-oF capabilities "
                        + "(an agent without the nvmeof provider; update it)",
                "server old cannot be an NVMe-oF target over tcp: its agent reports no NVMe-oF capabilities "
                        + "(an agent without the nvmeof provider; update it)");
    }

    @Test
    void theHellosNullBlkPiecesApplyOnlyToNullBlkBacking() {
        assertThat(matrices.expand("name: n\nbase: {provider: nvmeof, transport: local, backing: device, backing_path: /dev/sdb}\n"
                + "hosts: {loopback: [bare]}\n").runs()).singleElement();
        assertThat(matrices.violationsOf("name: n\nbase: {provider: nvmeof, transport: local}\nhosts: {loopback: [bare]}\n"))
                .extracting(Violation::message).containsExactly(
                        "host bare cannot be an NVMe-oF target over local: missing configfs, module null_blk");
        assertThat(matrices.violationsOf("name: n\nbase: {provider: nvmeof, transport: tcp, backing: device, backing_path: "
                + "/dev/sdb}\nhosts: {pairs: [[vm2, bare]]}\n")).extracting(Violation::message).containsExactly(
                        "server bare cannot be an NVMe-oF target over tcp: missing configfs");
    }

    @Test
    void aBackingPathTheTargetDoesNotListIsRefusedWhereTheMatrixSetsIt() {
        List<Violation> violations = matrices.violationsOf("""
                name: n
                base: {provider: nvmeof, transport: local, backing: file}
                dimensions: {backing_path: [/srv/a.img, /srv/b.img]}
                hosts: {loopback: [vm1, vm2]}
                """);
        assertThat(violations).extracting(Violation::field, Violation::message).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple("dimensions.backing_path[1]", "host vm1 does not offer /srv/b.img "
                        + "as a backing file (its nvmeof.backing_paths, agent option --nvmeof-backing: /srv/a.img)"),
                org.assertj.core.groups.Tuple.tuple("dimensions.backing_path[0]", "host vm2 does not offer /srv/a.img "
                        + "as a backing file (its nvmeof.backing_paths, agent option --nvmeof-backing: none)"),
                org.assertj.core.groups.Tuple.tuple("dimensions.backing_path[1]", "host vm2 does not offer /srv/b.img "
                        + "as a backing file (its nvmeof.backing_paths, agent option --nvmeof-backing: none)"));
    }
}
