package org.qplab.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Soft-RoCE lab (lab/lab) from Java: VMs booted with the host's kernel and rdma_rxe, each with
 * rxe0 on eth1 ({@link #rdmaAddress}), reachable over ssh as root, the host's root file system
 * read-only inside (so the JDK, perftest and the built agent jar are there under their host paths).
 * Tests get one shared instance through {@link SoftRoceLabExtension}; {@link #close()} stops every VM.
 */
public final class SoftRoceLab implements AutoCloseable {

    /** How long `lab up` may take: the script's own bound (QPLAB_LAB_TIMEOUT, 300 s) plus a margin. */
    private static final Duration UP_TIMEOUT = Duration.ofSeconds(420);
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(60);

    private final LabScript script;
    private final int vmCount;
    private final Map<Integer, Integer> gidIndexes = new ConcurrentHashMap<>();
    private final Thread downOnExit;

    private SoftRoceLab(LabScript script, int vmCount) {
        this.script = script;
        this.vmCount = vmCount;
        this.downOnExit = new Thread(this::downQuietly, "softroce-lab-down");
    }

    /** Why the lab cannot run here (the lab script's `check`), or empty when it can. */
    public static Optional<String> unavailabilityReason() {
        LabAvailability here = LabAvailability.here();
        return here.available() ? Optional.empty() : Optional.of(here.reason());
    }

    /**
     * Skips the calling test, naming what is missing, where the lab cannot run; under CI=true fails it instead
     * when no prerequisite is missing ({@link LabAvailability}).
     */
    public static void assumeAvailable() {
        LabAvailability.here().assume(System.getenv());
    }

    /** The state directory: {@code -Dqplab.lab.state-dir}, else target/softroce-lab of the running module. */
    public static Path defaultStateDir() {
        return Path.of(System.getProperty("qplab.lab.state-dir", "target/softroce-lab")).toAbsolutePath();
    }

    /**
     * Boots vms VMs (`lab up`), returning once every rxe0 is ACTIVE and the VMs ping each other.
     * A failure throws with the script's report (it includes the tail of each VM's console).
     */
    public static SoftRoceLab up(Path stateDir, int vms) throws IOException, InterruptedException {
        Path scriptPath = LabScript.locate().orElseThrow(() -> new IllegalStateException("lab/lab not found"));
        LabScript script = new LabScript(scriptPath, stateDir);
        SoftRoceLab lab = new SoftRoceLab(script, vms);
        Runtime.getRuntime().addShutdownHook(lab.downOnExit);
        CommandResult up = script.run(UP_TIMEOUT, "up", Integer.toString(vms));
        if (!up.succeeded()) {
            lab.close();
            throw new IllegalStateException("lab up " + vms + " failed: " + up.describe());
        }
        return lab;
    }

    public int vmCount() {
        return vmCount;
    }

    /**
     * Runs command with bash in VM vm (1-based) as root and waits for it. The VM bounds it with
     * `timeout` too, so nothing outlives its timeout there; a command that hit it exits 124 or 137.
     */
    public CommandResult ssh(int vm, Duration timeout, String command) throws IOException, InterruptedException {
        try (RemoteProcess process = start(vm, timeout, command)) {
            return process.await();
        }
    }

    /** Starts command in VM vm in the background (e.g. a server); read it with {@link RemoteProcess#await()}. */
    public RemoteProcess start(int vm, Duration timeout, String command) throws IOException {
        checkVm(vm);
        String bounded = "timeout -k 5 " + timeout.toSeconds() + " bash -c " + shellQuote(command);
        return script.start(timeout.plusSeconds(30), "ssh", Integer.toString(vm), bounded);
    }

    /** Waits until something in VM vm listens on TCP port (e.g. a perftest server's out-of-band socket). */
    public void awaitListening(int vm, int port, Duration timeout) throws IOException, InterruptedException {
        long tenths = Math.max(1, timeout.toMillis() / 200);
        CommandResult result = ssh(vm, timeout.plusSeconds(10), "for i in $(seq " + tenths + "); do "
                + "ss -Hltn 'sport = :" + port + "' | grep -q . && exit 0; sleep 0.2; done; exit 1");
        if (!result.succeeded()) {
            throw new IllegalStateException("nothing listens on port " + port + " in VM " + vm + " after " + timeout
                    + ": " + result.describe());
        }
    }

    /** VM vm's address on the RDMA segment (eth1, where rxe0 is): 198.18.0.(10+vm). */
    public String rdmaAddress(int vm) {
        checkVm(vm);
        return "198.18.0." + (10 + vm);
    }

    /** VM vm's address on eth2, where {@link #iwarpOn()} puts siw0: 198.18.1.(10+vm). */
    public String iwarpAddress(int vm) {
        checkVm(vm);
        return "198.18.1." + (10 + vm);
    }

    /**
     * Why siw (Soft-iWARP) cannot run here: what `lab siw check` lists (the kernel's source and build tree, which
     * Debian ships as linux-source-X.Y and linux-headers-KVER), or empty when it can.
     */
    public Optional<String> iwarpUnavailability() {
        try {
            CommandResult check = script.run(SCRIPT_TIMEOUT, "siw", "check");
            return check.succeeded() ? Optional.empty()
                    : Optional.of("siw.ko cannot be built here: " + check.stdout().strip().replace('\n', ';'));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: lab siw check", e);
        }
    }

    /** siw0 on eth2 in every VM (`lab siw`: builds siw.ko once, cached in the state directory), ACTIVE on return. */
    public void iwarpOn() throws IOException, InterruptedException {
        CommandResult on = script.run(Duration.ofSeconds(300), "siw");
        if (!on.succeeded()) {
            throw new IllegalStateException("lab siw failed: " + on.describe());
        }
    }

    /** Deletes siw0 again (`lab siw off`), so that runs which name no device find rxe0 alone. */
    public void iwarpOff() throws IOException, InterruptedException {
        CommandResult off = script.run(SCRIPT_TIMEOUT, "siw", "off");
        if (!off.succeeded()) {
            throw new IllegalStateException("lab siw off failed: " + off.describe());
        }
    }

    /** The GID index of rxe0's RoCEv2 GID for {@link #rdmaAddress}, read from the VM's sysfs. */
    public int roceGidIndex(int vm) {
        checkVm(vm);
        return gidIndexes.computeIfAbsent(vm, v -> Integer.parseInt(scriptOutput("gid", Integer.toString(v))));
    }

    /**
     * Lets every VM reach this host's 127.0.0.1:hostPort and returns where they connect. The VMs reach
     * nothing else outside the lab (qemu user-net with restrict=on); up to 8 ports at a time.
     */
    public ForwardedPort forwardHostPort(int hostPort) {
        String[] hostAndPort = scriptOutput("forward", Integer.toString(hostPort)).split(":");
        return new ForwardedPort(hostAndPort[0], Integer.parseInt(hostAndPort[1]));
    }

    /** The address VMs reach this host's forwarded ports at (nothing else of the host answers there). */
    public String hostAddress() {
        return scriptOutput("host-address");
    }

    /** VM vm's sshd on this host: 127.0.0.1:sshPort, user root, {@link #privateKey()}, {@link #knownHosts()}. */
    public int sshPort(int vm) {
        checkVm(vm);
        return Integer.parseInt(scriptOutput("port", Integer.toString(vm)));
    }

    /** The lab's ssh key (ed25519, no passphrase), authorized for root in every VM. */
    public Path privateKey() {
        return script.stateDir().resolve("keys/id_ed25519");
    }

    /** known_hosts with each VM's host key as {@code [127.0.0.1]:PORT} (read from its console at boot). */
    public Path knownHosts() {
        return script.stateDir().resolve("run/known_hosts");
    }

    /** The last lines of VM vm's console, for failure messages. */
    public String consoleTail(int vm) {
        return scriptOutput("console", Integer.toString(vm), "60");
    }

    public Path stateDir() {
        return script.stateDir();
    }

    /** Stops every VM and the switch (`lab down`). */
    @Override
    public void close() {
        downQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(downOnExit);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    private void downQuietly() {
        try {
            script.run(SCRIPT_TIMEOUT, "down");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String scriptOutput(String... args) {
        try {
            return script.output(SCRIPT_TIMEOUT, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: lab " + String.join(" ", args), e);
        }
    }

    private void checkVm(int vm) {
        if (vm < 1 || vm > vmCount) {
            throw new IllegalArgumentException("no VM " + vm + ": the lab has VMs 1.." + vmCount);
        }
    }

    static String shellQuote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
