package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Soft-RoCE tier: two VMs of the lab, real rdma_rxe devices, real perftest across them, and the
 * path an agent in a VM takes to a controller on this host.
 */
@ExtendWith(SoftRoceLabExtension.class)
class SoftRoceLabIntegrationTests {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);
    private static final int SERVER = 1;
    private static final int CLIENT = 2;
    /** IBV_DEVICE_XRC in ibv_device_attr.device_cap_flags (rdma-core verbs.h). */
    private static final long IBV_DEVICE_XRC = 1L << 20;

    @Test
    void everyVmHasAnActiveRoceV2DeviceOnItsLabAddress(SoftRoceLab lab) throws Exception {
        for (int vm = 1; vm <= lab.vmCount(); vm++) {
            int gid = lab.roceGidIndex(vm);
            String port = "/sys/class/infiniband/rxe0/ports/1";
            CommandResult device = lab.ssh(vm, COMMAND_TIMEOUT, "ibv_devinfo -d rxe0 && rdma link show rxe0/1"
                    + " && ip -4 -br addr show eth1 && cat " + port + "/gids/" + gid + " " + port + "/gid_attrs/types/" + gid);

            assertThat(device.succeeded()).as(device.describe()).isTrue();
            assertThat(device.stdout()).contains("hca_id:\trxe0").contains("PORT_ACTIVE").contains("link_layer:\t\tEthernet")
                    .contains("state ACTIVE").contains("netdev eth1").contains(lab.rdmaAddress(vm) + "/24")
                    .contains(ipv4MappedGidSuffix(lab.rdmaAddress(vm))).contains("RoCE v2");
        }
    }

    @Test
    void rcSendBandwidthAcrossTwoVms(SoftRoceLab lab) throws Exception {
        assertPerftestAcrossVms(lab, "ib_send_bw -c RC", 18515, 65536, 200);
    }

    @Test
    void rcWriteBandwidthAcrossTwoVms(SoftRoceLab lab) throws Exception {
        assertPerftestAcrossVms(lab, "ib_write_bw", 18516, 65536, 200);
    }

    @Test
    void rcReadBandwidthAcrossTwoVms(SoftRoceLab lab) throws Exception {
        assertPerftestAcrossVms(lab, "ib_read_bw", 18517, 4096, 200);
    }

    @Test
    void xrcIsNotSupportedByRxe(SoftRoceLab lab) throws Exception {
        CommandResult caps = lab.ssh(SERVER, COMMAND_TIMEOUT, "ibv_devinfo -v -d rxe0 | grep 'device_cap_flags:'");
        long flags = Long.decode(caps.stdout().strip().split("\\s+")[1]);
        assertThat(flags & IBV_DEVICE_XRC).as("IBV_DEVICE_XRC in device_cap_flags %s", Long.toHexString(flags)).isZero();

        int port = 18518;
        try (RemoteProcess server = lab.start(SERVER, COMMAND_TIMEOUT, perftest(lab, SERVER, "ib_send_bw -c XRC", port, 4096, 10))) {
            lab.awaitListening(SERVER, port, Duration.ofSeconds(60));
            CommandResult client = lab.ssh(CLIENT, COMMAND_TIMEOUT,
                    perftest(lab, CLIENT, "ib_send_bw -c XRC", port, 4096, 10) + " " + lab.rdmaAddress(SERVER));
            CommandResult served = server.await();

            assertThat(client.exitCode()).as(client.describe()).isNotZero();
            assertThat(client.stdout() + client.stderr()).contains("Error opening XRC domain").doesNotContain("#bytes");
            assertThat(served.exitCode()).as(served.describe()).isNotZero();
            assertThat(served.stdout() + served.stderr()).contains("Error opening XRC domain");
        }
    }

    @Test
    void theHostsJvmStartsInAVmAndReachesAListenerOnTheHostsLoopback(SoftRoceLab lab) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        long started = System.nanoTime();
        CommandResult version = lab.ssh(CLIENT, COMMAND_TIMEOUT, java + " -version");
        System.out.printf("java -version in VM %d (ssh included): %d ms%n", CLIENT,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertThat(version.succeeded()).as(version.describe()).isTrue();
        assertThat(version.stderr()).contains(System.getProperty("java.version"));

        String token = UUID.randomUUID().toString();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(90_000);
            CompletableFuture<String> greeting = CompletableFuture.supplyAsync(() -> answerOnce(listener, token));
            ForwardedPort forwarded = lab.forwardHostPort(listener.getLocalPort());
            String classes = Path.of(HostConnectionProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();

            CommandResult probe = lab.ssh(CLIENT, COMMAND_TIMEOUT, java + " -cp " + classes + " " + HostConnectionProbe.class.getName()
                    + " " + forwarded.address() + " " + forwarded.port());

            assertThat(probe.succeeded()).as(probe.describe()).isTrue();
            assertThat(probe.stdout()).contains("answer: " + token);
            assertThat(greeting.get(10, TimeUnit.SECONDS))
                    .isEqualTo("hello from qplab-vm" + CLIENT + " java " + System.getProperty("java.version"));
        }
    }

    @Test
    void vmsReachOnlyForwardedPortsOfTheHost(SoftRoceLab lab) throws Exception {
        try (ServerSocket notForwarded = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            notForwarded.setSoTimeout(2_000);
            int port = notForwarded.getLocalPort();
            String hostAddress = lab.hostAddress();
            // 198.19.0.1 is qemu user-net's own address: without restrict=on it leads to the host's 127.0.0.1
            CommandResult attempts = lab.ssh(CLIENT, COMMAND_TIMEOUT, "for a in " + hostAddress + " 198.19.0.1; do "
                    + "if timeout 5 bash -c \"exec 3<>/dev/tcp/$a/" + port + "\" 2>/dev/null; then echo \"$a reached\"; "
                    + "else echo \"$a unreachable\"; fi; done");

            assertThat(attempts.stdout()).contains(hostAddress + " unreachable").contains("198.19.0.1 unreachable");
            assertThat(acceptedAnything(notForwarded)).isFalse();
        }
    }

    private static void assertPerftestAcrossVms(SoftRoceLab lab, String tool, int port, int size, int iterations)
            throws Exception {
        try (RemoteProcess server = lab.start(SERVER, COMMAND_TIMEOUT, perftest(lab, SERVER, tool, port, size, iterations))) {
            lab.awaitListening(SERVER, port, Duration.ofSeconds(60));
            CommandResult client = lab.ssh(CLIENT, COMMAND_TIMEOUT,
                    perftest(lab, CLIENT, tool, port, size, iterations) + " " + lab.rdmaAddress(SERVER));
            CommandResult served = server.await();

            assertThat(client.succeeded()).as(client.describe()).isTrue();
            assertThat(served.succeeded()).as(served.describe()).isTrue();
            for (int vm : new int[] {CLIENT, SERVER}) {
                PerftestResult result = PerftestResult.parse(vm == CLIENT ? client.stdout() : served.stdout());
                assertThat(result.bytes()).as("#bytes in VM %d", vm).isEqualTo(size);
                assertThat(result.iterations()).as("#iterations in VM %d", vm).isEqualTo(iterations);
                assertThat(result.bwAverageMBps()).as("BW average in VM %d", vm).isPositive();
                assertThat(result.setting("Device")).isEqualTo("rxe0");
                assertThat(result.setting("Link type")).isEqualTo("Ethernet");
                assertThat(result.setting("GID index")).isEqualTo(Integer.toString(lab.roceGidIndex(vm)));
            }
            assertThat(PerftestResult.parse(client.stdout()).msgRateMpps()).isPositive();
            assertThat(client.stdout()).contains(gidBytes(lab.rdmaAddress(SERVER)));
        }
    }

    /** A perftest command line for VM vm: rxe0, its RoCEv2 GID, a short run. */
    private static String perftest(SoftRoceLab lab, int vm, String tool, int port, int size, int iterations) {
        return tool + " -d rxe0 -x " + lab.roceGidIndex(vm) + " -p " + port + " -s " + size + " -n " + iterations + " -F";
    }

    private static String answerOnce(ServerSocket listener, String token) {
        try (Socket socket = listener.accept()) {
            socket.setSoTimeout(30_000);
            String line = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
            new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8).println(token);
            return line;
        } catch (IOException e) {
            throw new IllegalStateException("no connection from the VM", e);
        }
    }

    private static boolean acceptedAnything(ServerSocket listener) throws IOException {
        try (Socket ignored = listener.accept()) {
            return true;
        } catch (SocketTimeoutException nothing) {
            return false;
        }
    }

    /** 198.18.0.11 as the last two groups of its IPv4-mapped GID in sysfs: c612:000b. */
    private static String ipv4MappedGidSuffix(String address) {
        String[] octets = address.split("\\.");
        return String.format("ffff:%02x%02x:%02x%02x", Integer.parseInt(octets[0]), Integer.parseInt(octets[1]),
                Integer.parseInt(octets[2]), Integer.parseInt(octets[3]));
    }

    /** 198.18.0.11 as perftest prints the end of a GID: 198:18:00:11. */
    private static String gidBytes(String address) {
        String[] octets = address.split("\\.");
        return String.format("%s:%s:%02d:%s", octets[0], octets[1], Integer.parseInt(octets[2]), octets[3]);
    }
}
