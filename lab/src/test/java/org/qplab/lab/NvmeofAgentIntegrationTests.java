package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.qplab.protocol.RunSummaryValidator.assertValid;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent's nvmeof sessions on the lab's VMs, at the agent level (the controller-level runs are the lab
 * module's other tests): VM 1 is the NVMe-oF target (null_blk, nvmet subsystem and port on its rdma address),
 * VM 2 the initiator (nvme connect, fio on the namespace, nvme disconnect). Each side is {@link NvmeofSide} driving
 * an NvmeofSession as RunExecutor does. After every run neither VM holds an nvmet subsystem, port or host, a
 * null_blk item, or an NVMe controller; a killed initiator's controller and fio go at the next cleanup. Every
 * summary (target and initiator, rdma and tcp) follows protocol's run-summary.schema.json.
 */
@ExtendWith(SoftRoceLabExtension.class)
class NvmeofAgentIntegrationTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(240);
    private static final int TARGET = 1;
    private static final int INITIATOR = 2;
    private static final AtomicLong RUN_IDS = new AtomicLong(System.currentTimeMillis() % 100_000 * 10);
    private static final String LEFT = "ls -A /sys/kernel/config/nvmet/subsystems /sys/kernel/config/nvmet/ports "
            + "/sys/kernel/config/nvmet/hosts /sys/kernel/config/nullb /sys/class/nvme 2>/dev/null "
            + "| grep -v -x -e '/.*:' -e '' -e features -e nvme-fabrics || true"; // nullb's and nvme's own entries
    private final ObjectMapper json = JsonMapper.builder().build();

    record Run(Map<String, Object> target, Map<String, Object> initiator, String targetOut, String initiatorOut) {}

    @Test
    void aRunOverRdmaCompletesAndLeavesNothingOnEitherVm(SoftRoceLab lab) throws Exception {
        Run run = run(lab, "rdma");
        assertInitiatorMeasured(run, "rdma");
        assertThat(run.initiator().get("counters")).asString().contains("source=sysfs", "device=rxe0");
        assertThat(delta(run.initiator(), "hw_counters/rcvd_pkts")).as("rxe0 received the reads' data").isPositive();
        assertThat(delta(run.target(), "hw_counters/sent_pkts")).as("the target's rxe0 sent it").isPositive();
        assertNothingLeft(lab);
    }

    /**
     * Both agents SIGKILLed mid-run (no teardown at all): VM 2 keeps its controller and an orphan fio, VM 1 its
     * subsystem, port, host and null_blk; a port made by hand as a run killed before linking it leaves one. The
     * cleanup an agent runs at start removes exactly those, and the next run (over tcp: its data came over TCP)
     * succeeds and leaves nothing either.
     */
    @Test
    void killedAgentsLeftoversGoAtTheNextCleanupAndTheNextRunSucceeds(SoftRoceLab lab) throws Exception {
        long runId = RUN_IDS.incrementAndGet();
        String spec = "{\"provider\":\"nvmeof\",\"transport\":\"tcp\",\"runtime_ms\":90000,\"interval_ms\":500}";
        try (RemoteProcess target = side(lab, TARGET, "server", runId, spec);
             RemoteProcess initiator = side(lab, INITIATOR, "client", runId, spec)) {
            exchangeEndpoints(lab, runId, target, initiator);
            awaitLine(initiator, "STARTED", Duration.ofSeconds(120));
            awaitLine(target, "STARTED", Duration.ofSeconds(30));
            Thread.sleep(2000);
            kill(lab, TARGET, target);
            kill(lab, INITIATOR, initiator);
            CommandResult left = lab.ssh(INITIATOR, Duration.ofSeconds(30), "ls /sys/class/nvme; pgrep -f -- "
                    + "'[-]-name=qplab-vm2-run-" + runId + "'"); // [-]: not this shell's own command line
            assertThat(left.stdout()).as("the killed initiator's controller and fio: " + left.describe())
                    .contains("nvme").containsPattern("\\d+");
            CommandResult targetLeft = lab.ssh(TARGET, Duration.ofSeconds(30), LEFT);
            assertThat(targetLeft.stdout()).as("the killed target's objects").contains("nqn.2014-08.org.qplab:vm1:run-" + runId)
                    .contains("qplab-vm1-run-" + runId);
        }
        // and a port of a run killed between making it and linking it (nothing names it: its id range and address do)
        String unlinked = Long.toString(20_000 + (runId + 5_000) % 10_000);
        CommandResult made = lab.ssh(TARGET, Duration.ofSeconds(30), "P=/sys/kernel/config/nvmet/ports/" + unlinked
                + " && mkdir $P && echo tcp > $P/addr_trtype && echo ipv4 > $P/addr_adrfam && echo "
                + lab.rdmaAddress(TARGET) + " > $P/addr_traddr");
        assertThat(made.succeeded()).as(made.describe()).isTrue();
        CommandResult cleanInitiator = lab.ssh(INITIATOR, TIMEOUT, java() + " vm2 " + lab.rdmaAddress(INITIATOR) + " cleanup");
        System.out.println(cleanInitiator.describe());
        assertThat(line(cleanInitiator.stdout(), "LEFTOVERS ")).as(cleanInitiator.describe())
                .startsWith("LEFTOVERS removed fio process")
                .contains("controller nvme", "(nqn.2014-08.org.qplab:vm1:run-" + runId + ")").doesNotContain("could not");
        CommandResult cleanTarget = lab.ssh(TARGET, TIMEOUT, java() + " vm1 " + lab.rdmaAddress(TARGET) + " cleanup");
        System.out.println(cleanTarget.describe());
        assertThat(line(cleanTarget.stdout(), "LEFTOVERS ")).as(cleanTarget.describe())
                .contains("port ", "unlinked port " + unlinked, "subsystem nqn.2014-08.org.qplab:vm1:run-" + runId,
                        "host nqn.2014-08.org.qplab:vm2:host",
                        "null_blk qplab-vm1-run-" + runId).doesNotContain("could not");
        CommandResult fio = lab.ssh(INITIATOR, Duration.ofSeconds(30), "pgrep -f -- '[-]-name=qplab-vm2-run-' || echo none");
        assertThat(fio.stdout().strip()).isEqualTo("none");
        assertNothingLeft(lab);
        Run next = run(lab, "tcp");
        assertInitiatorMeasured(next, "tcp");
        assertThat(delta(next.initiator(), "Tcp.InSegs")).as("the data came over TCP").isPositive();
        assertNothingLeft(lab);
    }

    private static void kill(SoftRoceLab lab, int vm, RemoteProcess side) throws Exception {
        String pid = line(side.stdoutSoFar(), "PID ").substring(4).strip();
        CommandResult killed = lab.ssh(vm, Duration.ofSeconds(30), "kill -9 " + pid);
        assertThat(killed.succeeded()).as(killed.describe()).isTrue();
    }

    private Run run(SoftRoceLab lab, String transport) throws Exception {
        long runId = RUN_IDS.incrementAndGet();
        String spec = "{\"provider\":\"nvmeof\",\"transport\":\"" + transport + "\",\"rw\":\"randread\",\"bs\":4096,"
                + "\"iodepth\":8,\"runtime_ms\":3000,\"interval_ms\":500}";
        try (RemoteProcess target = side(lab, TARGET, "server", runId, spec);
             RemoteProcess initiator = side(lab, INITIATOR, "client", runId, spec)) {
            exchangeEndpoints(lab, runId, target, initiator);
            CommandResult i = initiator.await();
            CommandResult t = target.await();
            System.out.println("target:\n" + t.describe() + "\ninitiator:\n" + i.describe());
            assertThat(i.stdout()).as(i.describe()).contains("CLOSED");
            assertThat(t.stdout()).as(t.describe()).contains("CLOSED");
            return new Run(summary(t.stdout()), summary(i.stdout()), t.stdout(), i.stdout());
        }
    }

    private void exchangeEndpoints(SoftRoceLab lab, long runId, RemoteProcess target, RemoteProcess initiator)
            throws Exception {
        String targetEndpoint = awaitLine(target, "ENDPOINT ", Duration.ofSeconds(150)).substring(9);
        String initiatorEndpoint = awaitLine(initiator, "ENDPOINT ", Duration.ofSeconds(150)).substring(9);
        assertThat(targetEndpoint).contains("\"subnqn\":\"nqn.2014-08.org.qplab:vm1:run-" + runId + "\"");
        assertThat(initiatorEndpoint).isEqualTo("{\"hostnqn\":\"nqn.2014-08.org.qplab:vm2:host\"}");
        give(lab, TARGET, runId, initiatorEndpoint);
        give(lab, INITIATOR, runId, targetEndpoint);
    }

    private void assertInitiatorMeasured(Run run, String transport) {
        Map<String, Object> s = run.initiator();
        System.out.println("initiator summary: " + s);
        assertThat(s).containsEntry("provider", "nvmeof").containsEntry("transport", transport)
                .containsEntry("side", "initiator").doesNotContainKey("error");
        assertThat((String) s.get("device")).matches("/dev/nvme\\d+n\\d+");
        assertThat(run.target()).containsEntry("side", "target").containsEntry("cycles", 0).doesNotContainKey("error");
        for (Map<String, Object> side : List.of(s, run.target())) {
            @SuppressWarnings("unchecked")
            Map<String, Object> cpu = (Map<String, Object>) side.get("cpu");
            assertThat(((Number) cpu.get("span_ns")).longValue()).as("cpu span").isGreaterThan(1_000_000_000L);
            assertThat(((Number) cpu.get("host_util_pct")).doubleValue()).as("host util %").isBetween(0.0, 100.0);
        }
        String intervals = line(run.initiatorOut(), "INTERVALS ");
        System.out.println(intervals + " (count, cycles)");
        long cycles = ((Number) s.getOrDefault("cycles", -1)).longValue();
        assertThat(Long.parseLong(intervals.split(" ")[2])).as("intervals' cycles = the summary's").isEqualTo(cycles);
        assertThat(cycles).as("I/Os").isPositive();
    }

    @SuppressWarnings("unchecked")
    private static long delta(Map<String, Object> summary, String counter) {
        Map<String, Object> counters = (Map<String, Object>) summary.get("counters");
        Object d = ((Map<String, Object>) counters.get("deltas")).get(counter);
        return d == null ? -1 : ((Number) d).longValue();
    }

    private void assertNothingLeft(SoftRoceLab lab) throws Exception {
        for (int vm : List.of(TARGET, INITIATOR)) {
            CommandResult left = lab.ssh(vm, Duration.ofSeconds(30), LEFT);
            assertThat(left.stdout().strip()).as("VM " + vm + " nvmet subsystems, ports, hosts, nullb, nvme controllers")
                    .isEmpty();
        }
    }

    private RemoteProcess side(SoftRoceLab lab, int vm, String role, long runId, String spec) throws Exception {
        return lab.start(vm, TIMEOUT, java() + " vm" + vm + " " + lab.rdmaAddress(vm) + " " + role + " " + runId + " "
                + Base64.getEncoder().encodeToString(spec.getBytes(StandardCharsets.UTF_8)) + " /tmp/qplab-peer-" + runId);
    }

    private static String java() throws Exception {
        String agent = Path.of(System.getProperty("qplab.test.agent-jar", "../agent/target/qplab-agent.jar"))
                .toAbsolutePath().normalize().toString();
        String classes = Path.of(NvmeofSide.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        return Path.of(System.getProperty("java.home"), "bin", "java") + " -cp " + agent + ":" + classes + " "
                + NvmeofSide.class.getName();
    }

    private static void give(SoftRoceLab lab, int vm, long runId, String endpoint) throws Exception {
        String b64 = Base64.getEncoder().encodeToString(endpoint.getBytes(StandardCharsets.UTF_8));
        CommandResult wrote = lab.ssh(vm, Duration.ofSeconds(30), "echo " + b64 + " | base64 -d > /tmp/qplab-peer-"
                + runId + ".part && mv /tmp/qplab-peer-" + runId + ".part /tmp/qplab-peer-" + runId);
        assertThat(wrote.succeeded()).as(wrote.describe()).isTrue();
    }

    private static String awaitLine(RemoteProcess process, String prefix, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String found = line(process.stdoutSoFar(), prefix);
            if (found != null) {
                return found;
            }
            if (!process.isAlive()) {
                throw new AssertionError("ended without " + prefix + ": " + process.await().describe());
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no " + prefix + " within " + timeout + ": " + process.stdoutSoFar());
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
    }

    /** The side's summary, as NvmeofSession wrote it: it must follow protocol's run-summary.schema.json. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> summary(String out) {
        String line = line(out, "SUMMARY ");
        assertThat(line).as("a summary in: " + out).isNotNull();
        assertValid(line.substring(8));
        return json.readValue(line.substring(8), Map.class);
    }
}
