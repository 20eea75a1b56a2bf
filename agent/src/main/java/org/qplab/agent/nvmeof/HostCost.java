package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.qplab.engine.Engine;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a side of an nvmeof run cost its host, in the engine summary's keys (qpb_cpu.c, qpb_counters.c) so the
 * run page shows them unchanged: "cpu" (host user/sys/util % from /proc/stat over the run's span; the engine's
 * own figures are null, fio's usr/sys % are added), "counters" (sysfs counters/ and hw_counters/ deltas of the
 * RDMA port whose netdev carries the data address, for rdma; /proc/net/snmp Tcp, host-wide, for tcp and local)
 * and "warnings" (retransmission and error counters that moved).
 */
final class HostCost {

    /**
     * The engine's list of counters whose movement is worth a warning (qpb_counter_warn_names, qpb_counters.c), read
     * once; empty, with why, when the engine cannot be loaded.
     */
    private static final class WarnNames {
        static final Set<String> NAMES;
        static final String PROBLEM;

        static {
            Set<String> names = Set.of();
            String problem = null;
            try {
                List<?> list = JsonMapper.builder().build().readValue(Engine.counterWarnNames(), List.class);
                names = list.stream().map(String::valueOf).collect(Collectors.toUnmodifiableSet());
            } catch (RuntimeException e) {
                problem = "counters not checked for warnings: the engine's list of them is unavailable: " + e.getMessage();
            }
            NAMES = names;
            PROBLEM = problem;
        }
    }

    private static final Set<String> SNMP_NOT_COUNTERS = Set.of("RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "CurrEstab");

    /** One reading of counters: values by name (null: unreadable), where they came from, and why none, if so. */
    record Counters(String source, String device, Integer port, Map<String, Long> values, String error) {}

    private final NvmeofHost host;
    private final boolean sysfs;
    private final String device;
    private final Integer port;
    private final String lookupError;
    private long[] statBefore;
    private long[] statAfter;
    private long beginNs;
    private long endNs;
    private Counters before;
    private Counters after;

    /** Which counters a run over transport reads: rdmaDevice (the spec's "device") or the data address's port. */
    HostCost(NvmeofHost host, String transport, String rdmaDevice) {
        this.host = host;
        this.sysfs = "rdma".equals(transport);
        String[] found = sysfs ? rdmaPort(rdmaDevice) : new String[3];
        this.device = found[0];
        this.port = found[1] != null ? Integer.valueOf(found[1]) : null;
        this.lookupError = found[2];
    }

    void begin() {
        beginNs = System.nanoTime();
        statBefore = procStat();
        before = read();
    }

    void end() {
        if (before != null && after == null) {
            endNs = System.nanoTime();
            statAfter = procStat();
            after = read();
        }
    }

    /** Puts "cpu", "counters" and "warnings" into summary; fioCpu: fio's usr/sys % (null on a target). */
    void put(Map<String, Object> summary, Map<String, Object> fioCpu) {
        Map<String, Object> cpu = new LinkedHashMap<>();
        cpu.put("span_ns", before != null && after != null ? endNs - beginNs : 0L);
        cpu.put("engine_user_ns", null); // no engine threads: the kernel and fio do the work
        cpu.put("engine_sys_ns", null);
        cpu.put("engine_util_pct", null);
        cpu.put("host_cpus", statAfter != null ? statAfter[8] : statBefore != null ? statBefore[8] : 0L);
        hostPercentages(cpu);
        if (fioCpu != null) {
            cpu.putAll(fioCpu);
        }
        summary.put("cpu", cpu);
        if (before == null) {
            summary.put("counters", null);
            summary.put("warnings", List.of());
            return;
        }
        Map<String, Object> counters = new LinkedHashMap<>();
        counters.put("source", before.source());
        if (before.device() != null) {
            counters.put("device", before.device());
            counters.put("port", before.port());
        }
        Map<String, Long> deltas = new LinkedHashMap<>();
        List<String> unreadable = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, Long> b : before.values().entrySet()) {
            Long a = after != null ? after.values().get(b.getKey()) : null;
            if (b.getValue() == null || a == null) {
                unreadable.add(b.getKey());
                continue;
            }
            long d = a - b.getValue();
            deltas.put(b.getKey(), d);
            String base = b.getKey().substring(b.getKey().lastIndexOf('/') + 1);
            if (d != 0 && WarnNames.NAMES.contains(base)) {
                warnings.add(b.getKey() + " moved by " + d + (before.device() == null ? " (host-wide)" : ""));
            }
        }
        if (WarnNames.PROBLEM != null) {
            warnings.add(WarnNames.PROBLEM);
        }
        counters.put("deltas", deltas);
        counters.put("unreadable", unreadable);
        String error = before.error() != null ? before.error() : after == null ? "no reading after the run" : after.error();
        counters.put("error", error);
        summary.put("counters", counters);
        summary.put("warnings", warnings);
    }

    /** qpb_cpu_finish: util = (total - idle - iowait) / total, user = user + nice, sys = system + irq + softirq. */
    private void hostPercentages(Map<String, Object> cpu) {
        Double user = null, sys = null, util = null, perftest = null;
        if (statBefore != null && statAfter != null) {
            long[] d = new long[8];
            for (int i = 0; i < 8; i++) {
                d[i] = Math.max(0, statAfter[i] - statBefore[i]);
            }
            long u = d[0] + d[1], s = d[2] + d[5] + d[6], idle = d[3] + d[4], total = u + s + idle + d[7];
            if (total > 0) {
                user = u * 100.0 / total;
                sys = s * 100.0 / total;
                util = (total - idle) * 100.0 / total;
                perftest = d[0] + d[3] > 0 ? d[0] * 100.0 / (d[0] + d[3]) : 0.0;
            }
        }
        cpu.put("host_user_pct", user);
        cpu.put("host_sys_pct", sys);
        cpu.put("host_util_pct", util);
        cpu.put("perftest_util_pct", perftest);
    }

    /** user nice system idle iowait irq softirq steal, then the number of cpuN lines; null when unreadable. */
    private long[] procStat() {
        try {
            List<String> lines = Files.readAllLines(host.proc().resolve("stat"));
            String[] f = lines.get(0).trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 5) {
                return null;
            }
            long[] v = new long[9];
            for (int i = 0; i < 8 && i + 1 < f.length; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
            v[8] = lines.stream().filter(l -> l.matches("cpu\\d+ .*")).count();
            return v;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private Counters read() {
        return sysfs ? readSysfs() : readSnmp();
    }

    private Counters readSysfs() {
        if (device == null) {
            return new Counters("sysfs", null, null, Map.of(), lookupError);
        }
        Map<String, Long> values = new TreeMap<>();
        Path ports = host.sysfs().resolve("class/infiniband").resolve(device).resolve("ports").resolve(port.toString());
        for (String dir : List.of("counters", "hw_counters")) {
            for (Path file : Leftovers.list(ports.resolve(dir))) {
                String name = file.getFileName().toString();
                if (!name.equals("lifespan")) { // a setting (ms), not a counter
                    values.put(dir + "/" + name, number(Leftovers.read(file)));
                }
            }
        }
        return new Counters("sysfs", device, port, values, values.isEmpty() ? "no counters under " + ports : null);
    }

    private Counters readSnmp() {
        Path path = host.proc().resolve("net/snmp");
        List<String> tcp = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(path)) {
                if (line.startsWith("Tcp:")) {
                    tcp.add(line);
                }
            }
        } catch (IOException e) {
            return new Counters("/proc/net/snmp", null, null, Map.of(), path + ": " + Command.errno(e));
        }
        if (tcp.size() < 2) {
            return new Counters("/proc/net/snmp", null, null, Map.of(), path + " has no Tcp lines");
        }
        String[] names = tcp.get(0).substring(4).trim().split("\\s+");
        String[] values = tcp.get(1).substring(4).trim().split("\\s+");
        Map<String, Long> read = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            if (!SNMP_NOT_COUNTERS.contains(names[i])) {
                read.put("Tcp." + names[i], i < values.length ? number(values[i]) : null);
            }
        }
        return new Counters("/proc/net/snmp", null, null, read, null);
    }

    private static Long number(String text) {
        try {
            return text == null || text.startsWith("-") ? null : Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {device, port, error}: the spec's device (its first port), else the port whose GID netdev carries the data address. */
    private String[] rdmaPort(String rdmaDevice) {
        Path ib = host.sysfs().resolve("class/infiniband");
        if (rdmaDevice != null && !rdmaDevice.isEmpty()) {
            List<Path> ports = Leftovers.list(ib.resolve(rdmaDevice).resolve("ports"));
            return ports.isEmpty() ? new String[] {null, null, "no ports under " + ib.resolve(rdmaDevice)}
                    : new String[] {rdmaDevice, ports.get(0).getFileName().toString(), null};
        }
        String address = host.dataAddress().get();
        String netdev;
        try {
            NetworkInterface nic = NetworkInterface.getByInetAddress(InetAddress.getByName(address));
            netdev = nic != null ? nic.getName() : null;
        } catch (IOException e) {
            netdev = null;
        }
        if (netdev == null) {
            return new String[] {null, null, "no network interface has the data address " + address};
        }
        for (Path dev : Leftovers.list(ib)) {
            for (Path p : Leftovers.list(dev.resolve("ports"))) {
                for (Path ndev : Leftovers.list(p.resolve("gid_attrs/ndevs"))) {
                    if (netdev.equals(Leftovers.read(ndev))) {
                        return new String[] {dev.getFileName().toString(), p.getFileName().toString(), null};
                    }
                }
            }
        }
        return new String[] {null, null, "no RDMA port has a GID on " + netdev + " (the data address " + address + ")"};
    }
}
