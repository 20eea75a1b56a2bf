package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether this host can be an NVMe-oF target or initiator: root, configfs, the kernel modules (loaded, loadable
 * with modprobe, or missing), fio and nvme-cli with their versions, and the backing paths it offers. The agent's
 * hello carries {@link #facts()} (key "nvmeof"); prepare refuses a run whose pieces are missing before it creates
 * anything ({@link #refusal}).
 */
public final class Capabilities {

    static final List<String> MODULES = List.of("nvmet", "nvmet-rdma", "nvmet-tcp", "nvme-rdma", "nvme-tcp", "null_blk");
    /** fio --version, nvme version, modprobe -n: a first start over the lab's 9p root under TCG took over 10 s. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern NVME_VERSION = Pattern.compile("nvme version (\\S+)");

    /** Bits of /proc/self/status's CapEff (linux/capability.h). */
    private static final int CAP_DAC_OVERRIDE = 1;
    private static final int CAP_SYS_MODULE = 16;
    private static final int CAP_SYS_ADMIN = 21;

    private final boolean root;
    private final boolean capSysAdmin;
    private final boolean capDacOverride;
    private final boolean capSysModule;
    private final String configfs;
    private final String fio;
    private final String nvmeCli;
    private final Map<String, String> modules;
    private final List<String> backingPaths;

    private Capabilities(boolean root, boolean[] caps, String configfs, String fio, String nvmeCli,
                         Map<String, String> modules, List<String> backingPaths) {
        this.root = root;
        this.capSysAdmin = caps[0];
        this.capDacOverride = caps[1];
        this.capSysModule = caps[2];
        this.configfs = configfs;
        this.fio = fio;
        this.nvmeCli = nvmeCli;
        this.modules = modules;
        this.backingPaths = backingPaths;
    }

    /** This host's capabilities, probing with real commands (modprobe -n, fio --version, nvme version). */
    public static Capabilities probe(NvmeofHost host) {
        return probe(host, argv -> Command.run(PROBE_TIMEOUT, argv));
    }

    static Capabilities probe(NvmeofHost host, Function<List<String>, Command.Result> commands) {
        Map<String, String> modules = new LinkedHashMap<>();
        for (String module : MODULES) {
            modules.put(module, Files.isDirectory(host.sysfs().resolve("module").resolve(module.replace('-', '_'))) ? "loaded"
                    : commands.apply(List.of("modprobe", "-n", "-q", module)).ok() ? "loadable" : "missing");
        }
        Command.Result fio = commands.apply(List.of("fio", "--version"));
        Command.Result nvme = commands.apply(List.of("nvme", "version"));
        Matcher version = NVME_VERSION.matcher(nvme.output());
        List<String> status = lines(host.proc().resolve("self/status"));
        long uid = uid(status);
        boolean[] caps = {capability(status, uid, CAP_SYS_ADMIN), capability(status, uid, CAP_DAC_OVERRIDE),
            capability(status, uid, CAP_SYS_MODULE)};
        return new Capabilities(uid == 0, caps, configfs(host),
                fio.ok() ? fio.output().strip() : null, nvme.ok() && version.find() ? version.group(1) : null, modules,
                host.backingPaths());
    }

    /** The real user id of this process, from /proc/self/status's lines (-1 when unreadable). */
    private static long uid(List<String> status) {
        for (String line : status) {
            if (line.startsWith("Uid:")) {
                return Long.parseLong(line.substring(4).strip().split("\\s+")[0]);
            }
        }
        return -1;
    }

    /**
     * Whether this process has capability bit in its effective set (a root process in a container may lack
     * CAP_SYS_ADMIN and CAP_SYS_MODULE); uid 0 when the kernel reports no CapEff.
     */
    private static boolean capability(List<String> status, long uid, int bit) {
        for (String line : status) {
            if (line.startsWith("CapEff:")) {
                return new BigInteger(line.substring(7).strip(), 16).testBit(bit);
            }
        }
        return uid == 0;
    }

    /** mounted (a configfs at host.configfs()), mountable (the kernel knows configfs) or missing. */
    private static String configfs(NvmeofHost host) {
        for (String line : lines(host.proc().resolve("mounts"))) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].equals("configfs") && f[1].equals(host.configfs().toString())) {
                return "mounted";
            }
        }
        for (String line : lines(host.proc().resolve("filesystems"))) {
            if (line.strip().endsWith("configfs")) {
                return "mountable";
            }
        }
        return "missing";
    }

    private static List<String> lines(Path path) {
        try {
            return Files.readAllLines(path);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The hello's "nvmeof" facts (see the issue 20 contract). */
    public Map<String, Object> facts() {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("root", root);
        facts.put("cap_sys_admin", capSysAdmin);
        facts.put("cap_dac_override", capDacOverride);
        facts.put("cap_sys_module", capSysModule);
        facts.put("configfs", configfs);
        facts.put("fio", fio);
        facts.put("nvme_cli", nvmeCli);
        facts.put("modules", modules);
        facts.put("backing_paths", backingPaths);
        Map<String, Object> target = new LinkedHashMap<>();
        for (String transport : List.of("rdma", "tcp", "local")) {
            target.put(transport, missing("target", transport, "null_blk"));
        }
        Map<String, Object> initiator = new LinkedHashMap<>();
        for (String transport : List.of("rdma", "tcp")) {
            initiator.put(transport, missing("initiator", transport, "null_blk"));
        }
        facts.put("missing", Map.of("target", target, "initiator", initiator));
        return facts;
    }

    /**
     * What this host lacks to be side (target, initiator) over transport with this backing: "not root" (nor
     * CAP_SYS_ADMIN), "no CAP_SYS_ADMIN" (root without it: a container), "no CAP_DAC_OVERRIDE" (neither root nor
     * that: root's files stay closed), "configfs", "module NAME (not loaded, and loading it needs CAP_SYS_MODULE)",
     * "module NAME", "fio", "nvme-cli". A local run is the target side (fio on its backing device). The hello's lists
     * are for the default backing, null_blk; a file or device backing needs neither null_blk nor (local) configfs.
     */
    public List<String> missing(String side, String transport, String backing) {
        List<String> missing = new ArrayList<>();
        if (!capSysAdmin) { // configfs, nvme connect, null_blk
            missing.add(root ? "no CAP_SYS_ADMIN" : "not root");
        } else if (!root && !capDacOverride) { // configfs' files, /dev/nvme-fabrics and the block devices are root's
            missing.add("no CAP_DAC_OVERRIDE");
        }
        boolean nullBlk = "null_blk".equals(backing);
        if (side.equals("target")) {
            boolean fabric = !transport.equals("local");
            if ((fabric || nullBlk) && configfs.equals("missing")) {
                missing.add("configfs");
            }
            if (fabric) {
                module(missing, "nvmet");
                module(missing, "nvmet-" + transport);
            }
            if (nullBlk) {
                module(missing, "null_blk");
            }
            if (!fabric && fio == null) {
                missing.add("fio");
            }
        } else {
            module(missing, "nvme-" + transport);
            if (fio == null) {
                missing.add("fio");
            }
            if (nvmeCli == null) {
                missing.add("nvme-cli");
            }
        }
        return missing;
    }

    private void module(List<String> missing, String name) {
        String state = modules.get(name);
        if ("missing".equals(state)) {
            missing.add("module " + name);
        } else if ("loadable".equals(state) && !capSysModule) {
            missing.add("module " + name + " (not loaded, and loading it needs CAP_SYS_MODULE)");
        }
    }

    /** "HOST cannot be an NVMe-oF target over rdma: missing module nvmet-rdma", or null when nothing is missing. */
    public String refusal(String hostName, String side, String transport, String backing) {
        List<String> missing = missing(side, transport, backing);
        if (missing.isEmpty()) {
            return null;
        }
        List<String> pieces = new ArrayList<>(missing);
        String privilege = pieces.remove("not root") ? "not root (the agent needs root or CAP_SYS_ADMIN)"
                : pieces.remove("no CAP_SYS_ADMIN") ? "no CAP_SYS_ADMIN (root in a container without it: run it with "
                + "cap_add SYS_ADMIN or privileged)"
                : pieces.remove("no CAP_DAC_OVERRIDE") ? "not root and no CAP_DAC_OVERRIDE (configfs, /dev/nvme-fabrics "
                + "and the block devices are root's: run the agent as root, or give it CAP_DAC_OVERRIDE too)" : null;
        String what = (privilege == null ? "" : privilege) + (privilege != null && !pieces.isEmpty() ? "; " : "")
                + (pieces.isEmpty() ? "" : "missing " + String.join(", ", pieces));
        return hostName + " cannot be an NVMe-oF " + side + " over " + transport + ": " + what;
    }

    public String configfs() {
        return configfs;
    }

    public String fio() {
        return fio;
    }
}
