package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.engine.EngineException;

class CapabilitiesTests {

    /** A host with nvmet loaded and every other module loadable, fio and nvme-cli installed. */
    @Test
    void reportsModulesToolsAndWhatEachRoleLacks(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm1");
        FakeHost.mkdirs(root.resolve("sys/module/nvmet"));
        Capabilities caps = Capabilities.probe(host, argv -> switch (String.join(" ", argv)) {
            case "fio --version" -> new Command.Result(0, "fio-3.33\n");
            case "nvme version" -> new Command.Result(0, "nvme version 2.3 (git 2.3)\nlibnvme version 1.3 (git 1.3)\n");
            case "modprobe -n -q nvmet-rdma" -> new Command.Result(1, "");
            default -> new Command.Result(argv.get(0).equals("modprobe") ? 0 : 127, "");
        });
        Map<String, Object> facts = caps.facts();
        assertThat(facts).containsEntry("root", true).containsEntry("configfs", "mounted").containsEntry("fio", "fio-3.33")
                .containsEntry("nvme_cli", "2.3").containsEntry("backing_paths", List.of());
        assertThat(facts.get("modules")).isEqualTo(Map.of("nvmet", "loaded", "nvmet-rdma", "missing", "nvmet-tcp",
                "loadable", "nvme-rdma", "loadable", "nvme-tcp", "loadable", "null_blk", "loadable"));
        assertThat(facts.get("missing")).isEqualTo(Map.of(
                "target", Map.of("rdma", List.of("module nvmet-rdma"), "tcp", List.of(), "local", List.of()),
                "initiator", Map.of("rdma", List.of(), "tcp", List.of())));
        assertThat(caps.refusal("vm1", "target", "rdma", "null_blk"))
                .isEqualTo("vm1 cannot be an NVMe-oF target over rdma: missing module nvmet-rdma");
        assertThat(caps.refusal("vm1", "target", "tcp", "null_blk")).isNull();
    }

    @Test
    void aHostWithoutRootConfigfsOrToolsSaysWhatIsMissing(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "box");
        Files.writeString(root.resolve("proc/self/status"), "Uid:\t1000\t1000\t1000\t1000\n");
        Files.writeString(root.resolve("proc/mounts"), "");
        Files.writeString(root.resolve("proc/filesystems"), "nodev\tproc\n");
        Capabilities caps = Capabilities.probe(host, argv -> new Command.Result(127, "not found"));
        assertThat(caps.facts()).containsEntry("root", false).containsEntry("configfs", "missing")
                .containsEntry("fio", null).containsEntry("nvme_cli", null);
        assertThat(caps.missing("initiator", "tcp", "null_blk")).containsExactly("not root", "module nvme-tcp", "fio", "nvme-cli");
        assertThat(caps.missing("target", "local", "file")).as("a file needs neither configfs nor null_blk")
                .containsExactly("not root", "fio");
        assertThat(caps.refusal("box", "initiator", "rdma", "null_blk")).isEqualTo("box cannot be an NVMe-oF initiator "
                + "over rdma: not root (the agent needs root or CAP_SYS_ADMIN); missing module nvme-rdma, fio, nvme-cli");
    }

    @Test
    void whatDecidesIsTheCapabilitiesNotTheUid(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "box");
        Function<List<String>, Command.Result> tools = argv -> new Command.Result(0, "fio-3.33\nnvme version 2.3");
        // docker's default set for a root container: CAP_DAC_OVERRIDE (bit 1), no CAP_SYS_MODULE (16) or SYS_ADMIN (21)
        Files.writeString(root.resolve("proc/self/status"), "Uid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n");
        Capabilities container = Capabilities.probe(host, tools);
        assertThat(container.facts()).containsEntry("root", true).containsEntry("cap_sys_admin", false)
                .containsEntry("cap_dac_override", true).containsEntry("cap_sys_module", false);
        assertThat(container.missing("target", "tcp", "null_blk")).containsExactly("no CAP_SYS_ADMIN",
                "module nvmet (not loaded, and loading it needs CAP_SYS_MODULE)",
                "module nvmet-tcp (not loaded, and loading it needs CAP_SYS_MODULE)",
                "module null_blk (not loaded, and loading it needs CAP_SYS_MODULE)");
        assertThat(container.refusal("box", "initiator", "tcp", "null_blk")).isEqualTo("box cannot be an NVMe-oF "
                + "initiator over tcp: no CAP_SYS_ADMIN (root in a container without it: run it with cap_add SYS_ADMIN "
                + "or privileged); missing module nvme-tcp (not loaded, and loading it needs CAP_SYS_MODULE)");

        // not root, CAP_SYS_ADMIN alone: root's configfs files and /dev/nvme-fabrics stay closed
        Files.writeString(root.resolve("proc/self/status"), "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000210000\n");
        assertThat(Capabilities.probe(host, tools).refusal("box", "initiator", "tcp", "null_blk")).isEqualTo("box "
                + "cannot be an NVMe-oF initiator over tcp: not root and no CAP_DAC_OVERRIDE (configfs, /dev/nvme-fabrics "
                + "and the block devices are root's: run the agent as root, or give it CAP_DAC_OVERRIDE too)");

        // not root, CAP_SYS_ADMIN + CAP_DAC_OVERRIDE + CAP_SYS_MODULE: able
        Files.writeString(root.resolve("proc/self/status"), "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000210002\n");
        Capabilities capable = Capabilities.probe(host, tools);
        assertThat(capable.facts()).containsEntry("root", false).containsEntry("cap_sys_admin", true);
        assertThat(capable.missing("target", "rdma", "null_blk")).isEmpty();
        assertThat(capable.refusal("box", "initiator", "tcp", "null_blk")).isNull();
    }

    /**
     * This development/CI machine (no /lib/modules for its kernel, no configfs): a real probe finds nvmet-rdma
     * missing, and a target prepare is refused naming the host and the module before anything is created.
     */
    @Test
    void onThisHostATargetOverRdmaIsRefusedBeforeAnythingIsCreated(@TempDir Path root) throws Exception {
        assumeThat(Command.run(Duration.ofSeconds(10), List.of("modprobe", "-n", "-q", "nvmet-rdma")).ok())
                .as("this host can load nvmet-rdma").isFalse();
        NvmeofHost real = NvmeofHost.of("ci-host", List.of(), () -> "127.0.0.1");
        Capabilities caps = Capabilities.probe(real);
        assertThat(caps.facts().get("modules")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("nvmet-rdma", "missing");
        assertThat(caps.missing("target", "rdma", "null_blk")).contains("module nvmet-rdma");

        NvmeofHost host = new NvmeofHost("ci-host", List.of(), () -> "127.0.0.1", root.resolve("config"),
                root.resolve("sys"), root.resolve("proc"), root.resolve("dev"), root.resolve("run/lock"));
        FakeHost.of(root, "ci-host");
        assertThatThrownBy(() -> NvmeofSession.create(7, Map.of("provider", "nvmeof", "role", "server",
                "transport", "rdma"), host))
                .isInstanceOf(NvmeofException.class)
                .hasMessageStartingWith("ci-host cannot be an NVMe-oF target over rdma: missing ")
                .hasMessageContaining("module nvmet-rdma")
                .satisfies(e -> assertThat(((EngineException) e).status()).as("not retryable: unsupported").isEqualTo(2));
        try (var left = Files.walk(root.resolve("config"))) {
            assertThat(left.toList()).as("nothing created").containsExactly(root.resolve("config"));
        }
    }
}
