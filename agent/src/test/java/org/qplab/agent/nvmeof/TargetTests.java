package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetTests {

    /**
     * A configfs that makes no attribute files (plain directories): the first write fails naming the step, the
     * value, the path and the errno text, and what was made before it is removed again.
     */
    @Test
    void aFailedStepNamesWhatTheKernelSaidAndLeavesNothingBehind(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm1");
        FakeHost.mkdirs(root.resolve("sys/module/nvmet"));
        FakeHost.mkdirs(root.resolve("sys/module/nvmet_tcp"));
        FakeHost.mkdirs(root.resolve("config/nvmet/subsystems"));
        FakeHost.mkdirs(root.resolve("config/nvmet/ports"));
        Path subsystem = root.resolve("config/nvmet/subsystems/nqn.2014-08.org.qplab:vm1:run-3");
        assertThatThrownBy(() -> Target.create(host, 3, "tcp", "/dev/qplab-vm1-run-3"))
                .isInstanceOf(NvmeofException.class)
                .hasMessageStartingWith("create nvmet subsystem nqn.2014-08.org.qplab:vm1:run-3: writing 0 to "
                        + subsystem.resolve("attr_allow_any_host") + ": No such file or directory");
        assertThat(subsystem).doesNotExist();
    }

    /** Port ids and service ids follow the run id, skipping what other nvmet ports hold. */
    @Test
    void portIdAndTrsvcidSkipThoseInUse(@TempDir Path root) throws Exception {
        Path ports = FakeHost.mkdirs(root.resolve("config/nvmet/ports"));
        FakeHost.mkdirs(ports.resolve("20003"));
        Files.writeString(ports.resolve("20003/addr_trsvcid"), "4423\n");
        assertThat(Target.portId(ports, 10_003)).isEqualTo(20004);
        assertThat(Target.trsvcid(ports, 3)).isEqualTo(4424);
        assertThat(Target.portId(ports, 9_999)).isEqualTo(29_999);
        assertThat(Target.trsvcid(ports, 999)).isEqualTo(5419);
    }
}
