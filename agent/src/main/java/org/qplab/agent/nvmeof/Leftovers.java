package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Removes what nvmeof runs of this agent left on the host: a run that failed half-way, an agent that was killed,
 * a controller that never said stop. Runs at agent start and at every nvmeof prepare; idempotent, and it touches
 * only what carries this agent's names (see {@link NvmeofHost}), in the order that works by hand: fio processes,
 * connected controllers, nvmet port links and ports, subsystems (allowed hosts, namespaces), hosts, null_blk items.
 * The nvmet part runs under {@link NvmetLock}, which makes an unlinked port in qplab's range on this agent's data
 * address, or a qplab host entry no subsystem allows, a dead run's.
 */
public final class Leftovers {

    /** What was removed, and what could not be (each naming the step and the errno text). */
    public record Report(List<String> removed, List<String> problems) {
        public boolean isEmpty() {
            return removed.isEmpty() && problems.isEmpty();
        }

        @Override
        public String toString() {
            return (removed.isEmpty() ? "nothing removed" : "removed " + String.join(", ", removed))
                    + (problems.isEmpty() ? "" : "; could not: " + String.join("; ", problems));
        }
    }

    private final NvmeofHost host;
    private final List<String> removed = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    private Leftovers(NvmeofHost host) {
        this.host = host;
    }

    public static Report clean(NvmeofHost host) {
        Leftovers l = new Leftovers(host);
        l.fioProcesses();
        l.controllers();
        l.nvmet();
        l.nullBlk();
        return new Report(List.copyOf(l.removed), List.copyOf(l.problems));
    }

    /** fio processes whose command line carries this agent's job name (--name=qplab-TAG-run-...). */
    private void fioProcesses() {
        String marker = "--name=" + host.runPrefix();
        long self = ProcessHandle.current().pid();
        for (Path dir : list(host.proc())) {
            String name = dir.getFileName().toString();
            if (!name.matches("\\d+") || Long.parseLong(name) == self) {
                continue;
            }
            String cmdline;
            try {
                cmdline = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                continue; // gone, or not ours to read
            }
            if (!Stream.of(cmdline.split("\0")).anyMatch(arg -> arg.startsWith(marker)
                    && host.isRunName(arg.substring("--name=".length())))) {
                continue;
            }
            Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(name));
            process.ifPresent(ProcessHandle::destroyForcibly);
            boolean gone = process.map(p -> {
                try {
                    p.onExit().get(3, TimeUnit.SECONDS);
                    return true;
                } catch (Exception e) {
                    return !p.isAlive();
                }
            }).orElse(true);
            if (gone) {
                removed.add("fio process " + name);
            } else {
                problems.add("kill leftover fio process " + name + ": still running 3 s after SIGKILL");
            }
        }
    }

    /** NVMe controllers this agent connected (their hostnqn is its own): deleted as nvme disconnect does. */
    private void controllers() {
        for (Path ctrl : list(host.sysfs().resolve("class/nvme"))) {
            if (host.hostNqn().equals(read(ctrl.resolve("hostnqn")))) {
                String what = "controller " + ctrl.getFileName() + " (" + read(ctrl.resolve("subsysnqn")) + ")";
                note(what, Command.writeIfPresent("disconnect leftover controller " + ctrl.getFileName(),
                        ctrl.resolve("delete_controller"), "1"));
            }
        }
    }

    private void nvmet() {
        Path nvmet = host.nvmet();
        if (!Files.isDirectory(nvmet)) {
            return;
        }
        try (NvmetLock lock = NvmetLock.acquire(host, "look for leftover nvmet objects")) {
            nvmet(nvmet);
        } catch (NvmeofException e) {
            problems.add(e.getMessage());
        }
    }

    /** Under the lock: no live run of an agent on this host is between making an object and linking it. */
    private void nvmet(Path nvmet) {
        String prefix = host.subsystemPrefix();
        String dataAddress = dataAddress();
        for (Path port : list(nvmet.resolve("ports"))) {
            String id = port.getFileName().toString();
            List<Path> links = list(port.resolve("subsystems"));
            boolean ours = false;
            for (Path link : links) {
                if (link.getFileName().toString().startsWith(prefix)) {
                    ours = true;
                    note(null, Command.remove("unlink leftover subsystem from port " + id, link));
                }
            }
            if (ours && list(port.resolve("subsystems")).isEmpty()) {
                note("port " + id, Command.remove("remove leftover port", port));
            } else if (links.isEmpty() && Target.isQplabPortId(id) && unlinkedPortOf(port, dataAddress)) {
                // a run killed after making its port and before linking it (or after unlinking it, before rmdir)
                note("unlinked port " + id, Command.remove("remove leftover unlinked port", port));
            }
        }
        Set<String> theirHosts = new HashSet<>();
        for (Path subsystem : list(nvmet.resolve("subsystems"))) {
            if (!subsystem.getFileName().toString().startsWith(prefix)) {
                for (Path allowed : list(subsystem.resolve("allowed_hosts"))) {
                    theirHosts.add(allowed.getFileName().toString());
                }
                continue;
            }
            String step = "remove leftover subsystem " + subsystem.getFileName();
            for (Path allowed : list(subsystem.resolve("allowed_hosts"))) {
                note(null, Command.remove(step, allowed));
            }
            for (Path namespace : list(subsystem.resolve("namespaces"))) {
                note(null, Command.writeIfPresent(step, namespace.resolve("enable"), "0"));
                note(null, Command.remove(step, namespace));
            }
            note("subsystem " + subsystem.getFileName(), Command.remove(step, subsystem));
        }
        // a qplab host NQN no subsystem allows any more: this agent's subsystems allowed it, or a run died between
        // creating it and linking it
        for (Path h : list(nvmet.resolve("hosts"))) {
            String name = h.getFileName().toString();
            if (name.startsWith(NvmeofHost.NQN_PREFIX) && !theirHosts.contains(name)) {
                note("host " + name, Command.remove("remove leftover host", h));
            }
        }
    }

    /** A port listening on this agent's data address, or one whose address was not written yet. */
    private static boolean unlinkedPortOf(Path port, String dataAddress) {
        String traddr = read(port.resolve("addr_traddr"));
        return traddr == null || traddr.isEmpty() || traddr.equals(dataAddress);
    }

    private String dataAddress() {
        try {
            return host.dataAddress().get();
        } catch (RuntimeException e) { // not known yet: only ports without an address are taken as this agent's
            return null;
        }
    }

    private void nullBlk() {
        for (Path item : list(host.nullb())) {
            if (host.isRunName(item.getFileName().toString())) {
                String step = "remove leftover null_blk " + item.getFileName();
                note(null, Command.writeIfPresent(step, item.resolve("power"), "0"));
                note("null_blk " + item.getFileName(), Command.remove(step, item));
            }
        }
    }

    /** Records a removal (what, when it worked) or its problem. */
    private void note(String what, String problem) {
        if (problem != null) {
            problems.add(problem);
        } else if (what != null) {
            removed.add(what);
        }
    }

    static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
