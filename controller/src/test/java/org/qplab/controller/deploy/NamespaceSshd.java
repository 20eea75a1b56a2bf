package org.qplab.controller.deploy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real OpenSSH server in a network namespace of its own, joined to this host by a veth pair:
 * the host side is {@link #HOST_ADDRESS}, sshd listens on {@link #ADDRESS}:22. Root login with one
 * generated key. Everything is removed on close.
 */
final class NamespaceSshd implements AutoCloseable {

    static final String HOST_ADDRESS = "198.18.77.1";
    static final String ADDRESS = "198.18.77.2";

    private final String namespace;
    private final String vethHost;
    private final Path dir;
    private final List<Process> processes = new ArrayList<>();

    private NamespaceSshd(Path dir) {
        long id = ProcessHandle.current().pid() % 100_000;
        this.namespace = "qplab-ssh-" + id;
        this.vethHost = "qsh" + id;
        this.dir = dir;
    }

    /** Skips the calling test (with the reason) where namespaces or sshd are not available. */
    static void assumeAvailable() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "SSH deploy test: needs root to create a network namespace (ip netns add)");
        for (String tool : List.of("/usr/sbin/sshd", "/usr/bin/ssh-keygen")) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of(tool)),
                    "SSH deploy test: " + tool + " is missing (Debian: openssh-server, openssh-client)");
        }
        Assumptions.assumeTrue(List.of("/usr/sbin/ip", "/usr/bin/ip", "/bin/ip").stream()
                .anyMatch(ip -> Files.isExecutable(Path.of(ip))), "SSH deploy test: `ip` is missing (Debian: iproute2)");
    }

    static NamespaceSshd start(Path dir, Path clientPublicKey) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        NamespaceSshd sshd = new NamespaceSshd(dir);
        try {
            sshd.up(clientPublicKey);
            return sshd;
        } catch (IOException | InterruptedException | RuntimeException e) {
            sshd.close();
            throw e;
        }
    }

    private void up(Path clientPublicKey) throws IOException, InterruptedException {
        run("ip", "netns", "del", namespace).waitFor(); // a leftover of a killed run
        check("ip", "netns", "add", namespace);
        check("ip", "link", "add", vethHost, "type", "veth", "peer", "name", "eth-ssh", "netns", namespace);
        check("ip", "addr", "add", HOST_ADDRESS + "/30", "dev", vethHost);
        check("ip", "link", "set", vethHost, "up");
        check("ip", "netns", "exec", namespace, "ip", "addr", "add", ADDRESS + "/30", "dev", "eth-ssh");
        check("ip", "netns", "exec", namespace, "ip", "link", "set", "eth-ssh", "up");
        check("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up");

        Files.deleteIfExists(hostKey());
        Files.deleteIfExists(Path.of(hostKey() + ".pub"));
        check("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey().toString());
        Files.copy(clientPublicKey, dir.resolve("authorized_keys"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "Port 22", "ListenAddress " + ADDRESS, "HostKey " + hostKey(),
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"), "PermitRootLogin prohibit-password",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
                "PidFile " + dir.resolve("sshd.pid"), "Subsystem sftp internal-sftp", ""));
        Files.createDirectories(Path.of("/run/sshd"));
        processes.add(new ProcessBuilder("ip", "netns", "exec", namespace, "/usr/sbin/sshd", "-D", "-e",
                "-f", dir.resolve("sshd_config").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(ADDRESS, 22), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline || !processes.get(0).isAlive()) {
                    throw new IOException("sshd in " + namespace + " did not listen on " + ADDRESS + ":22 within 20 s: "
                            + Files.readString(dir.resolve("sshd.log")));
                }
                Thread.sleep(100);
            }
        }
    }

    Path hostKey() {
        return dir.resolve("ssh_host_ed25519_key");
    }

    /** The host's public key as a known_hosts line. */
    String knownHostsLine() throws IOException {
        String[] pub = Files.readString(Path.of(hostKey() + ".pub")).strip().split("\\s+");
        return ADDRESS + " " + pub[0] + " " + pub[1] + "\n";
    }

    /** The host key's fingerprint as `ssh-keygen -l` prints it (SHA256:...). */
    String fingerprint() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ssh-keygen", "-l", "-f", hostKey() + ".pub").start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(10, TimeUnit.SECONDS);
        return out.split("\\s+")[1];
    }

    /** Kills every process of the namespace (the deployed agent among them). */
    void killAll() throws IOException, InterruptedException {
        Process pids = new ProcessBuilder("ip", "netns", "pids", namespace).start();
        String out = new String(pids.getInputStream().readAllBytes());
        pids.waitFor();
        for (String pid : out.split("\\s+")) {
            if (!pid.isBlank()) {
                run("kill", "-9", pid).waitFor();
            }
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        killAll();
        for (Process p : processes) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        run("ip", "link", "del", vethHost).waitFor(10, TimeUnit.SECONDS);
        run("ip", "netns", "del", namespace).waitFor(10, TimeUnit.SECONDS);
    }

    private void check(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }

    private static Process run(String... command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }
}
