package org.qplab.agent.nvmeof;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's NVMe-oF host side: `nvme connect` to the target's subsystem with this agent's host NQN, the namespace's
 * block device found through sysfs, and `nvme disconnect` at the end (idempotent: a controller already gone is fine).
 */
final class Initiator {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(30);
    static final long DEVICE_WAIT_MS = 10_000;

    private final NvmeofHost host;
    private final String subnqn;
    private boolean connected;
    private String device;

    private Initiator(NvmeofHost host, String subnqn) {
        this.host = host;
        this.subnqn = subnqn;
    }

    /** Loads nvme-TRANSPORT, connects to the target, and waits for the namespace's block device. */
    static Initiator connect(NvmeofHost host, String transport, String traddr, String trsvcid, String subnqn) {
        Kernel.load(host, "nvme-" + transport);
        Initiator initiator = new Initiator(host, subnqn);
        initiator.connected = true; // from here on a half-made connection is disconnected on failure
        try {
            Command.require("nvme connect to " + subnqn + " at " + transport + " " + traddr + ":" + trsvcid, CONNECT_TIMEOUT,
                    List.of("nvme", "connect", "-t", transport, "-a", traddr, "-s", trsvcid, "-n", subnqn,
                            "--hostnqn=" + host.hostNqn(), "--ctrl-loss-tmo=5", "--reconnect-delay=1"));
            initiator.device = initiator.awaitNamespace();
            return initiator;
        } catch (RuntimeException e) {
            initiator.close().forEach(problem -> e.addSuppressed(new IllegalStateException(problem)));
            throw e;
        }
    }

    /** /dev/nvmeXnY of the connected subsystem (native multipath: under nvme-subsystem; else under the controller). */
    private String awaitNamespace() {
        long deadline = System.nanoTime() + DEVICE_WAIT_MS * 1_000_000;
        while (true) {
            String name = namespace(host, subnqn);
            if (name != null && Files.exists(host.dev().resolve(name))) {
                return host.dev().resolve(name).toString();
            }
            if (System.nanoTime() > deadline) {
                throw NvmeofException.failed("find the namespace of " + subnqn + ": no nvmeXnY under "
                        + host.sysfs().resolve("class/nvme-subsystem") + " or " + host.sysfs().resolve("class/nvme")
                        + " with that subsysnqn within " + DEVICE_WAIT_MS + " ms of nvme connect" + Command.kernelSaid());
            }
            Backing.sleep(100);
        }
    }

    static String namespace(NvmeofHost host, String subnqn) {
        for (String classDir : List.of("class/nvme-subsystem", "class/nvme")) {
            for (Path dir : Leftovers.list(host.sysfs().resolve(classDir))) {
                if (subnqn.equals(Leftovers.read(dir.resolve("subsysnqn")))) {
                    for (Path entry : Leftovers.list(dir)) {
                        if (entry.getFileName().toString().matches("nvme\\d+n\\d+")) {
                            return entry.getFileName().toString();
                        }
                    }
                }
            }
        }
        return null;
    }

    String device() {
        return device;
    }

    /** nvme disconnect -n SUBNQN unless done; returns the step that failed, if any (none connected is fine). */
    List<String> close() {
        List<String> problems = new ArrayList<>();
        if (connected) {
            connected = false;
            Command.Result result = Command.run(DISCONNECT_TIMEOUT, List.of("nvme", "disconnect", "-n", subnqn));
            // nvme-cli 2.x exits 0 and says "disconnected 0 controller(s)" when nothing was connected
            if (!result.ok() && namespace(host, subnqn) != null) {
                problems.add("nvme disconnect -n " + subnqn + ": exited " + result.exit() + ": "
                        + Command.oneLine(result.output()));
            }
        }
        return problems;
    }
}
