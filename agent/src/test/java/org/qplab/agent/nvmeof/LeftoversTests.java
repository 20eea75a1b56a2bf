package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeftoversTests {

    /**
     * What a killed run of agent "vm 1" left (subsystem with namespace and allowed host, a port linking it, the
     * host, its null_blk item, its connected controller) goes; agent vm2's objects, a port of someone else and a
     * non-qplab host stay.
     */
    @Test
    void removesThisAgentsNvmetObjectsNullBlkAndControllersAndKeepsEveryoneElses(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm 1");
        Path nvmet = root.resolve("config/nvmet");
        String ours = "nqn.2014-08.org.qplab:vm-1:run-42";
        String theirs = "nqn.2014-08.org.qplab:vm2:run-7";
        String initiator = "nqn.2014-08.org.qplab:vm3:host";
        String theirInitiator = "nqn.2014-08.org.qplab:vm4:host";
        Path hostDir = FakeHost.mkdirs(nvmet.resolve("hosts").resolve(initiator));
        Path theirHostDir = FakeHost.mkdirs(nvmet.resolve("hosts").resolve(theirInitiator));
        Path plainHost = FakeHost.mkdirs(nvmet.resolve("hosts/nqn.2020-01.com.example:someone"));
        Path subsystem = FakeHost.mkdirs(nvmet.resolve("subsystems").resolve(ours));
        FakeHost.mkdirs(subsystem.resolve("namespaces/1"));
        Files.createDirectories(subsystem.resolve("allowed_hosts"));
        Files.createSymbolicLink(subsystem.resolve("allowed_hosts").resolve(initiator), hostDir);
        Path theirSubsystem = FakeHost.mkdirs(nvmet.resolve("subsystems").resolve(theirs));
        FakeHost.mkdirs(theirSubsystem.resolve("namespaces/1"));
        Files.createDirectories(theirSubsystem.resolve("allowed_hosts"));
        Files.createSymbolicLink(theirSubsystem.resolve("allowed_hosts").resolve(theirInitiator), theirHostDir);
        Path port = FakeHost.mkdirs(nvmet.resolve("ports/20042/subsystems"));
        Files.createSymbolicLink(port.resolve(ours), subsystem);
        Path theirPort = FakeHost.mkdirs(nvmet.resolve("ports/20007/subsystems"));
        Files.createSymbolicLink(theirPort.resolve(theirs), theirSubsystem);
        Path nullb = FakeHost.mkdirs(root.resolve("config/nullb/qplab-vm-1-run-42"));
        Path theirNullb = FakeHost.mkdirs(root.resolve("config/nullb/qplab-vm2-run-7"));
        Path ctrl = FakeHost.mkdirs(root.resolve("sys/class/nvme/nvme0"));
        Files.writeString(ctrl.resolve("hostnqn"), "nqn.2014-08.org.qplab:vm-1:host\n");
        Files.writeString(ctrl.resolve("subsysnqn"), "nqn.2014-08.org.qplab:vm5:run-9\n");
        Files.writeString(ctrl.resolve("delete_controller"), "");
        Path theirCtrl = FakeHost.mkdirs(root.resolve("sys/class/nvme/nvme1"));
        Files.writeString(theirCtrl.resolve("hostnqn"), "nqn.2014-08.org.qplab:vm2:host\n");
        Files.writeString(theirCtrl.resolve("delete_controller"), "");

        Leftovers.Report report = Leftovers.clean(host);

        assertThat(report.problems()).isEmpty();
        assertThat(report.removed()).containsExactly(
                "controller nvme0 (nqn.2014-08.org.qplab:vm5:run-9)", "port 20042", "subsystem " + ours,
                "host " + initiator, "null_blk qplab-vm-1-run-42");
        assertThat(Files.readString(ctrl.resolve("delete_controller"))).as("deleted as nvme disconnect does").isEqualTo("1");
        assertThat(Files.readString(theirCtrl.resolve("delete_controller"))).isEmpty();
        assertThat(nvmet.resolve("ports/20042")).doesNotExist();
        assertThat(subsystem).doesNotExist();
        assertThat(hostDir).doesNotExist();
        assertThat(nullb).doesNotExist();
        assertThat(theirPort.resolve(theirs)).exists();
        assertThat(theirSubsystem.resolve("namespaces/1")).exists();
        assertThat(theirHostDir).exists();
        assertThat(plainHost).exists();
        assertThat(theirNullb).exists();
    }

    /**
     * A port in qplab's range that no subsystem is linked to, on this agent's data address or without one yet (a run
     * killed between mkdir and ln): removed. One on another address, one outside the range, and a linked one stay.
     */
    @Test
    void removesUnlinkedPortsARunKilledMidwayLeft(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm1");
        Path ports = root.resolve("config/nvmet/ports");
        Path ourAddress = FakeHost.mkdirs(ports.resolve("20005/subsystems"));
        Files.writeString(ourAddress.resolve("../addr_traddr"), "198.18.0.11\n");
        Path noAddress = FakeHost.mkdirs(ports.resolve("20006/subsystems"));
        Path otherAddress = FakeHost.mkdirs(ports.resolve("20007/subsystems"));
        Files.writeString(otherAddress.resolve("../addr_traddr"), "198.18.0.12\n");
        Path outOfRange = FakeHost.mkdirs(ports.resolve("1/subsystems"));
        Path linked = FakeHost.mkdirs(ports.resolve("20008/subsystems"));
        Path someonesSubsystem = FakeHost.mkdirs(root.resolve("config/nvmet/subsystems/nqn.2020-01.com.example:disk"));
        Files.createSymbolicLink(linked.resolve("nqn.2020-01.com.example:disk"), someonesSubsystem);

        Leftovers.Report report = Leftovers.clean(host);

        assertThat(report.problems()).isEmpty();
        assertThat(report.removed()).containsExactly("unlinked port 20005", "unlinked port 20006");
        assertThat(ports.resolve("20005")).doesNotExist();
        assertThat(ports.resolve("20006")).doesNotExist();
        assertThat(otherAddress).exists();
        assertThat(outOfRange).exists();
        assertThat(linked.resolve("nqn.2020-01.com.example:disk")).exists();
        assertThat(root.resolve("run/lock/qplab-nvmet.lock")).as("taken under the host's nvmet lock").exists();
    }

    @Test
    void isIdempotentAndQuietOnAHostWithoutConfigfs(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "a");
        FakeHost.mkdirs(root.resolve("config/nvmet/subsystems/nqn.2014-08.org.qplab:a:run-1/namespaces/1"));
        assertThat(Leftovers.clean(host).removed()).containsExactly("subsystem nqn.2014-08.org.qplab:a:run-1");
        assertThat(Leftovers.clean(host).isEmpty()).isTrue();
        Files.delete(root.resolve("config/nvmet/subsystems"));
        Files.delete(root.resolve("config/nvmet"));
        Files.delete(root.resolve("config"));
        assertThat(Leftovers.clean(host).isEmpty()).as("nothing mounted: nothing to clean").isTrue();
    }

    /** A fio whose command line names this agent's job is killed; the one of another agent is not. */
    @Test
    void killsOrphanFioProcessesByTheirJobName(@TempDir Path root) throws Exception {
        NvmeofHost host = new NvmeofHost("vm1", java.util.List.of(), () -> "127.0.0.1", root.resolve("config"),
                root.resolve("sys"), Path.of("/proc"), root.resolve("dev"), root.resolve("run/lock"));
        // stands in for fio: a process whose argv carries the job name (sleep ignores no argument: use sh -c)
        Process ours = new ProcessBuilder("sh", "-c", "sleep 60", "--name=qplab-vm1-run-5").start();
        Process theirs = new ProcessBuilder("sh", "-c", "sleep 60", "--name=qplab-vm2-run-5").start();
        try {
            Leftovers.Report report = Leftovers.clean(host);
            assertThat(report.removed()).containsExactly("fio process " + ours.pid());
            assertThat(ours.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(theirs.isAlive()).isTrue();
        } finally {
            ours.destroyForcibly();
            theirs.destroyForcibly();
        }
    }
}
