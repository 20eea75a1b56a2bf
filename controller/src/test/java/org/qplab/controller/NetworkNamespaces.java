package org.qplab.controller;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Test hosts: network namespaces joined by veth pairs to one bridge on this host. The bridge is
 * {@link #hostAddress()}; namespace i (1-based) is {@code 198.18.<net>.(10+i)}. 198.18.0.0/15 is reserved
 * for benchmark testing. Everything is removed on close, also what a killed earlier run left behind.
 */
public final class NetworkNamespaces implements AutoCloseable {

    private final String hostAddress;
    private final int net;
    private final int count;
    private final String prefix;
    private final String bridge;

    private NetworkNamespaces(int net, int count) {
        this.net = net;
        this.count = count;
        this.prefix = "qpl" + net + "-";
        this.bridge = "qplbr" + net;
        this.hostAddress = "198.18." + net + ".1";
    }

    /** Skips the calling test (with the reason) where network namespaces cannot be made. */
    public static void assumeAvailable(String what) {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                what + ": needs root to create network namespaces (ip netns add)");
        Assumptions.assumeTrue(List.of("/usr/sbin/ip", "/usr/bin/ip", "/bin/ip").stream()
                .anyMatch(ip -> Files.isExecutable(Path.of(ip))), what + ": `ip` is missing (Debian: iproute2)");
    }

    /** net: the third octet of this test's subnet (distinct per test class); count: how many hosts. */
    public static NetworkNamespaces create(int net, int count) throws IOException, InterruptedException {
        NetworkNamespaces n = new NetworkNamespaces(net, count);
        n.close();
        try {
            n.up();
            return n;
        } catch (IOException | InterruptedException | RuntimeException e) {
            n.close();
            throw e;
        }
    }

    private void up() throws IOException, InterruptedException {
        check("ip", "link", "add", bridge, "type", "bridge");
        check("ip", "addr", "add", hostAddress + "/24", "dev", bridge);
        check("ip", "link", "set", bridge, "up");
        for (int i = 1; i <= count; i++) {
            String ns = name(i);
            String veth = prefix + i;
            check("ip", "netns", "add", ns);
            check("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
            check("ip", "link", "set", veth, "master", bridge);
            check("ip", "link", "set", veth, "up");
            check("ip", "netns", "exec", ns, "ip", "addr", "add", address(i) + "/24", "dev", "eth0");
            check("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up");
            check("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        }
    }

    /** This host's address on the bridge: where the namespaces reach the controller. */
    public String hostAddress() {
        return hostAddress;
    }

    /** The namespace of host i. */
    public String name(int i) {
        return prefix + "h" + i;
    }

    public String address(int i) {
        return "198.18." + net + "." + (10 + i);
    }

    /** A command run inside host i's namespace. */
    public List<String> in(int i, List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name(i)));
        all.addAll(command);
        return all;
    }

    /**
     * Limits host i's link to rate (tc's units: 100mbit) both ways: a token bucket on its veth's bridge side (what
     * it receives) and on its eth0 (what it sends). Removed with the namespace.
     */
    public void shape(int i, String rate) throws IOException, InterruptedException {
        check("tc", "qdisc", "add", "dev", prefix + i, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "100ms");
        check("ip", "netns", "exec", name(i), "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate,
                "burst", "64kb", "latency", "100ms");
    }

    /** Changes the rate of host i's link, shaped before by {@link #shape}: both its token buckets, in place. */
    public void reshape(int i, String rate) throws IOException, InterruptedException {
        check("tc", "qdisc", "change", "dev", prefix + i, "root", "tbf", "rate", rate, "burst", "64kb", "latency", "100ms");
        check("ip", "netns", "exec", name(i), "tc", "qdisc", "change", "dev", "eth0", "root", "tbf", "rate", rate,
                "burst", "64kb", "latency", "100ms");
    }

    /** Takes host i's link down (or up again): its veth on the bridge side. */
    public void link(int i, boolean up) throws IOException, InterruptedException {
        check("ip", "link", "set", prefix + i, up ? "up" : "down");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (int i = 1; i <= count; i++) {
            Process pids = new ProcessBuilder("ip", "netns", "pids", name(i)).redirectErrorStream(true).start();
            String out = new String(pids.getInputStream().readAllBytes());
            pids.waitFor(10, TimeUnit.SECONDS);
            for (String pid : out.split("\\s+")) {
                if (pid.matches("\\d+")) {
                    quietly("kill", "-9", pid);
                }
            }
            quietly("ip", "link", "del", prefix + i);
            quietly("ip", "netns", "del", name(i));
        }
        quietly("ip", "link", "del", bridge);
    }

    private static void check(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    private static void quietly(String... command) throws IOException, InterruptedException {
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                .waitFor(10, TimeUnit.SECONDS);
    }
}
