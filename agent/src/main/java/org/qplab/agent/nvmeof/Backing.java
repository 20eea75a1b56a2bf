package org.qplab.agent.nvmeof;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.qplab.engine.nvmeof.NvmeofSpec;

/**
 * The block device or file a run's namespace (or a local run's fio) uses: a null_blk device made through configfs
 * for the run (configfs nullb/NAME gives /dev/NAME), or a path the host's --nvmeof-backing lists, used as it is.
 */
final class Backing {

    /** How long a new null_blk device may take to appear under /dev. */
    private static final long DEVICE_WAIT_MS = 10_000;

    private final NvmeofHost host;
    private final Path item;
    private final String device;

    private Backing(NvmeofHost host, Path item, String device) {
        this.host = host;
        this.item = item;
        this.device = device;
    }

    /** The path fio or the namespace uses: /dev/NAME of the null_blk item, or the backing path. */
    String device() {
        return device;
    }

    static Backing create(NvmeofHost host, long runId, NvmeofSpec spec) {
        if (!"null_blk".equals(spec.backing())) {
            if (!Files.exists(Path.of(spec.backingPath()))) {
                throw NvmeofException.invalid("backing_path " + spec.backingPath() + " does not exist on "
                        + host.agentId());
            }
            return new Backing(host, null, spec.backingPath());
        }
        Kernel.mountConfigfs(host);
        Kernel.load(host, "null_blk", "nr_devices=0");
        String name = host.runName(runId);
        Path item = host.nullb().resolve(name);
        Command.mkdir("create null_blk " + name, item);
        Backing backing = new Backing(host, item, host.dev().resolve(name).toString());
        try {
            String step = "configure null_blk " + name;
            Command.write(step, item.resolve("size"), Long.toString(spec.backingSizeBytes() >> 20)); // MiB
            Command.write(step, item.resolve("power"), "1");
            backing.awaitDevice(name);
            return backing;
        } catch (RuntimeException e) {
            backing.close().forEach(problem -> e.addSuppressed(new IllegalStateException(problem)));
            throw e;
        }
    }

    private void awaitDevice(String name) {
        long deadline = System.nanoTime() + DEVICE_WAIT_MS * 1_000_000;
        Path dev = Path.of(device);
        while (!(Files.exists(dev) && Files.isDirectory(host.sysfs().resolve("block").resolve(name)))) {
            if (System.nanoTime() > deadline) {
                throw NvmeofException.failed("create null_blk " + name + ": " + dev + " did not appear within "
                        + DEVICE_WAIT_MS + " ms after power 1" + Command.kernelSaid());
            }
            sleep(50);
        }
    }

    /** Removes the null_blk item (power 0, rmdir); returns the steps that failed (a missing item is not one). */
    List<String> close() {
        List<String> problems = new ArrayList<>();
        if (item != null) {
            String step = "remove null_blk " + item.getFileName();
            add(problems, Command.writeIfPresent(step, item.resolve("power"), "0"));
            add(problems, Command.remove(step, item));
        }
        return problems;
    }

    static void add(List<String> problems, String problem) {
        if (problem != null) {
            problems.add(problem);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NvmeofException.failed("interrupted");
        }
    }
}
