package org.qplab.agent.nvmeof;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * This host as the nvmeof provider sees it: who the agent is (its names on the host derive from its id), the
 * backing paths it may use, its data address, and where the kernel's file systems are (tests pass fakes).
 *
 * @param agentId      the agent's id (AgentConfig.agentId): refusals name the host by it
 * @param backingPaths files and block devices a run may use as backing (--nvmeof-backing)
 * @param dataAddress  where a target's port and control socket listen (the agent's data address)
 * @param configfs     /sys/kernel/config
 * @param sysfs        /sys
 * @param proc         /proc
 * @param dev          /dev
 * @param locks        /run/lock: where the agents of a host take turns at nvmet ({@link NvmetLock})
 */
public record NvmeofHost(String agentId, List<String> backingPaths, Supplier<String> dataAddress, Path configfs,
                         Path sysfs, Path proc, Path dev, Path locks) {

    /** The NQN prefix of everything qplab names (the contract's names). */
    static final String NQN_PREFIX = "nqn.2014-08.org.qplab:";

    public NvmeofHost {
        backingPaths = List.copyOf(backingPaths);
    }

    /** This host's real roots. */
    public static NvmeofHost of(String agentId, List<String> backingPaths, Supplier<String> dataAddress) {
        return new NvmeofHost(agentId, backingPaths, dataAddress, Path.of("/sys/kernel/config"), Path.of("/sys"),
                Path.of("/proc"), Path.of("/dev"), Path.of("/run/lock"));
    }

    /** The agent id with every character outside [A-Za-z0-9.-] replaced by '-'. */
    public String tag() {
        return agentId.replaceAll("[^A-Za-z0-9.-]", "-");
    }

    /** The subsystem NQN a target agent makes for a run. */
    public String subsystemNqn(long runId) {
        return subsystemPrefix() + runId;
    }

    String subsystemPrefix() {
        return NQN_PREFIX + tag() + ":run-";
    }

    /** Whether nqn is a qplab initiator's host NQN (the form {@link #hostNqn} makes), safe as a configfs name. */
    static boolean isInitiatorNqn(String nqn) {
        return nqn.startsWith(NQN_PREFIX) && nqn.substring(NQN_PREFIX.length()).matches("[A-Za-z0-9.-]{1,128}:host");
    }

    /** The host NQN this agent connects with as an initiator. */
    public String hostNqn() {
        return NQN_PREFIX + tag() + ":host";
    }

    /** The null_blk configfs item of a run (its block device is /dev/NAME), and fio's job name. */
    public String runName(long runId) {
        return runPrefix() + runId;
    }

    /** What every null_blk item and fio job name of this agent starts with. */
    String runPrefix() {
        return "qplab-" + tag() + "-run-";
    }

    /**
     * Whether name is one of this agent's run names: the prefix and a run id, nothing else (agent vm1's prefix
     * "qplab-vm1-run-" also begins agent vm1-run-b's "qplab-vm1-run-b-run-7", which is not vm1's).
     */
    boolean isRunName(String name) {
        return name.startsWith(runPrefix()) && name.substring(runPrefix().length()).matches("\\d+");
    }

    Path nvmet() {
        return configfs.resolve("nvmet");
    }

    Path nullb() {
        return configfs.resolve("nullb");
    }
}
