package org.qplab.agent.nvmeof;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A run's NVMe-oF target in the kernel's nvmet configfs: a subsystem with one namespace on the backing device,
 * a port on the agent's data address linked to it, and (once the initiator said who it is) its host NQN as the
 * only allowed host. Each object is remembered as it is made; {@link #close()} removes them in reverse.
 */
final class Target {

    static final int PORT_ID_BASE = 20_000;
    static final int PORT_IDS = 10_000;
    static final int TRSVCID_BASE = 4420;
    static final int TRSVCIDS = 1000;

    private final NvmeofHost host;
    private final String nqn;
    private final String transport;
    private final String traddr;
    private Path subsystem;
    private Path namespace;
    private Path port;
    private Path portLink;
    private String trsvcid;
    private Path hostDir;
    private Path allowedLink;

    private Target(NvmeofHost host, String nqn, String transport, String traddr) {
        this.host = host;
        this.nqn = nqn;
        this.transport = transport;
        this.traddr = traddr;
    }

    /** Loads nvmet and nvmet-TRANSPORT, then makes the subsystem, its namespace on device, and the port. */
    static Target create(NvmeofHost host, long runId, String transport, String device) {
        Kernel.mountConfigfs(host);
        Kernel.load(host, "nvmet");
        Kernel.load(host, "nvmet-" + transport);
        Target target = new Target(host, host.subsystemNqn(runId), transport, host.dataAddress().get());
        try {
            target.subsystem(device);
            target.port(runId);
            return target;
        } catch (RuntimeException e) {
            target.close().forEach(problem -> e.addSuppressed(new IllegalStateException(problem)));
            throw e;
        }
    }

    private void subsystem(String device) {
        String step = "create nvmet subsystem " + nqn;
        Path dir = host.nvmet().resolve("subsystems").resolve(nqn);
        Command.mkdir(step, dir);
        subsystem = dir;
        Command.write(step, dir.resolve("attr_allow_any_host"), "0");
        Path ns = dir.resolve("namespaces").resolve("1");
        Command.mkdir(step + " namespace 1", ns);
        namespace = ns;
        Command.write(step + " namespace 1", ns.resolve("device_path"), device);
        Command.write(step + " namespace 1", ns.resolve("enable"), "1");
    }

    /** Under {@link NvmetLock}: picks free ids (no other agent picks them meanwhile), makes the port, links it. */
    private void port(long runId) {
        try (NvmetLock lock = NvmetLock.acquire(host, "create nvmet port for " + nqn)) {
            Path ports = host.nvmet().resolve("ports");
            int id = portId(ports, runId);
            int service = trsvcid(ports, runId);
            String step = "create nvmet port " + id + " (" + transport + " " + traddr + ":" + service + ")";
            Path dir = ports.resolve(Integer.toString(id));
            Command.mkdir(step, dir);
            port = dir;
            trsvcid = Integer.toString(service);
            Command.write(step, dir.resolve("addr_trtype"), transport);
            Command.write(step, dir.resolve("addr_adrfam"), traddr.contains(":") ? "ipv6" : "ipv4");
            Command.write(step, dir.resolve("addr_traddr"), traddr);
            Command.write(step, dir.resolve("addr_trsvcid"), trsvcid);
            Path link = dir.resolve("subsystems").resolve(nqn);
            Command.symlink("enable nvmet port " + id + " (" + transport + " " + traddr + ":" + service + ")", link,
                    subsystem);
            portLink = link;
        }
    }

    /** Whether id (a port's directory name) lies in the range qplab's ports are made in. */
    static boolean isQplabPortId(String id) {
        if (!id.matches("\\d{1,9}")) {
            return false;
        }
        int n = Integer.parseInt(id);
        return n >= PORT_ID_BASE && n < PORT_ID_BASE + PORT_IDS;
    }

    /** 20000 + runId % 10000, or the next id no nvmet port has. */
    static int portId(Path ports, long runId) {
        Set<String> taken = new HashSet<>();
        for (Path p : Leftovers.list(ports)) {
            taken.add(p.getFileName().toString());
        }
        return next(PORT_ID_BASE, PORT_IDS, runId, taken);
    }

    /** 4420 + runId % 1000, or the next service id no other nvmet port listens on. */
    static int trsvcid(Path ports, long runId) {
        Set<String> taken = new HashSet<>();
        for (Path p : Leftovers.list(ports)) {
            taken.add(Leftovers.read(p.resolve("addr_trsvcid")));
        }
        return next(TRSVCID_BASE, TRSVCIDS, runId, taken);
    }

    private static int next(int base, int count, long runId, Set<String> taken) {
        int at = (int) (runId % count);
        for (int i = 0; i < count && taken.contains(Integer.toString(base + at)); i++) {
            at = (at + 1) % count;
        }
        return base + at;
    }

    /** Lets hostNqn (the initiator's) connect: hosts/HOSTNQN and the subsystem's allowed_hosts link to it. */
    void allow(String hostNqn) {
        String step = "allow host " + hostNqn;
        try (NvmetLock lock = NvmetLock.acquire(host, step)) { // another run's cleanup would take an unlinked entry
            Path dir = host.nvmet().resolve("hosts").resolve(hostNqn);
            if (!Files.isDirectory(dir)) {
                Command.mkdir(step, dir);
                hostDir = dir;
            }
            Path link = subsystem.resolve("allowed_hosts").resolve(hostNqn);
            Command.symlink(step, link, dir);
            allowedLink = link;
        }
    }

    String nqn() {
        return nqn;
    }

    String traddr() {
        return traddr;
    }

    String trsvcid() {
        return trsvcid;
    }

    /** Removes everything it made, in reverse; returns the steps that failed (each goes on past a failure). */
    List<String> close() {
        List<String> problems = new ArrayList<>();
        String step = "tear down nvmet " + nqn;
        if (portLink != null || port != null || allowedLink != null || hostDir != null) {
            try (NvmetLock lock = NvmetLock.acquire(host, step)) {
                if (portLink != null) {
                    Backing.add(problems, Command.remove(step, portLink));
                }
                if (port != null) {
                    Backing.add(problems, Command.remove(step, port));
                }
                if (allowedLink != null) {
                    Backing.add(problems, Command.remove(step, allowedLink));
                }
                if (hostDir != null) {
                    Backing.add(problems, Command.remove(step, hostDir));
                }
            } catch (NvmeofException e) { // the agent's next cleanup removes them
                problems.add(e.getMessage());
            }
        }
        if (namespace != null) {
            Backing.add(problems, Command.writeIfPresent(step, namespace.resolve("enable"), "0"));
            Backing.add(problems, Command.remove(step, namespace));
        }
        if (subsystem != null) {
            Backing.add(problems, Command.remove(step, subsystem));
        }
        portLink = port = allowedLink = hostDir = namespace = subsystem = null;
        return problems;
    }
}
