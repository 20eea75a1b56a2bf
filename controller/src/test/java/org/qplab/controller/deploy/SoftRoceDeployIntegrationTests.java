package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.qplab.controller.database.TestDatabase;
import org.qplab.controller.experiment.CurvePicture;
import org.qplab.lab.CommandResult;
import org.qplab.lab.ForwardedPort;
import org.qplab.lab.SoftRoceLab;
import org.qplab.lab.SoftRoceLabExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The whole path on real RDMA devices: the controller deploys its agent over SSH (JSch, the lab's
 * key, host keys checked against the lab's known_hosts) into the two Soft-RoCE VMs, the agents
 * register through the lab's forwarded port, and a verbs matrix runs across rxe as client/server
 * pairs — the engine driven by the agent through jnr-ffi inside a VM. Stored results must add up and
 * the curves must show them. Then every reference experiment's Soft-RoCE variant
 * (experiments/&#42;/lab.yaml) runs to completion on the same agents, and its curve is drawn as a PNG
 * into target/experiment-pictures/ (or -Dqplab.experiments.pictures=DIR, e.g. ../experiments to
 * refresh the committed ones); -Dqplab.experiments.only=7-latency-vs-size,... runs only those. Then
 * NVMe-oF across the VMs (vm1 the target, vm2 the initiator) over rdma and tcp: the results add up and nothing is
 * left on either VM, also after the initiator's agent was killed in the middle of a run and deployed again.
 */
@ExtendWith(SoftRoceLabExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT, properties = {
        "qplab.agents.token=softroce-test-token",
        "qplab.security.admin-password=" + org.qplab.controller.ControllerIntegrationTest.ADMIN_PASSWORD,
        "qplab.database.embedded.port=0",
        "qplab.database.embedded.fsync=false",
        "qplab.schedule.tick=500ms",
        // a run that hangs under TCG (rxe retransmission storms) is failed and the next one goes on
        "qplab.schedule.run-timeout=3m",
        // a JVM in a TCG VM took 100 s to log its first line while the machine ran other labs and builds
        "qplab.deploy.register-timeout=5m",
        // the VMs reach this controller only through the lab's relay, which connects to 127.0.0.1
        "server.address=127.0.0.1",
})
class SoftRoceDeployIntegrationTests {

    private static final ParameterizedTypeReference<Map<String, Object>> JSON_OBJECT = new ParameterizedTypeReference<>() { };
    private static final ParameterizedTypeReference<List<Map<String, Object>>> JSON_ARRAY = new ParameterizedTypeReference<>() { };
    private static final int ITERATIONS = 300;
    private static final double MIB = 1024.0 * 1024.0;
    private static final Path EXPERIMENTS = Path.of(System.getProperty("qplab.test.experiments", "../experiments"))
            .toAbsolutePath();
    private static final int PORT = freePort();
    private static SoftRoceLab lab;
    private static ForwardedPort forwarded;

    @Autowired
    private JdbcClient jdbc;
    @Autowired
    private org.qplab.controller.security.ApiTokens tokens;
    private static String token;

    @BeforeAll
    static void forwardTheControllerIntoTheLab(SoftRoceLab booted) {
        lab = booted;
        forwarded = lab.forwardHostPort(PORT);
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("server.port", () -> PORT);
        registry.add("qplab.database.embedded.data-dir", () -> TestDatabase.freshDataDir().toString());
        registry.add("qplab.deploy.private-key", () -> lab.privateKey().toString());
        registry.add("qplab.deploy.known-hosts", () -> lab.knownHosts().toString());
        registry.add("qplab.deploy.controller-url", () -> "ws://" + forwarded.address() + ":" + forwarded.port() + "/agent");
    }

    @Test
    @Order(1)
    void deploysAgentsIntoTwoVmsAndRunsAVerbsMatrixAcrossRxe() throws Exception {
        List<CompletableFuture<Map<String, Object>>> deploys = new ArrayList<>();
        for (int vm = 1; vm <= 2; vm++) {
            // the VM's own agent settings (DeployService reads remoteDir/agent.env): its RoCE address is where a pair
            // run's server side listens, an NVMe-oF target's port too; without it the agent would take the address
            // its route to the controller leaves from, eth0's, which the other VM cannot reach
            CommandResult env = lab.ssh(vm, Duration.ofSeconds(60), "mkdir -p -m 700 /root/.qplab && echo QPLAB_DATA_ADDRESS="
                    + lab.rdmaAddress(vm) + " > /root/.qplab/agent.env");
            assertThat(env.exitCode()).as("agent.env in vm%d: %s", vm, env.stderr()).isZero();
            http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", "vm" + vm, "address", "127.0.0.1", "sshPort", lab.sshPort(vm), "sshUser", "root"))
                    .exchange().expectStatus().isCreated();
            int n = vm;
            // both at once: a JVM takes about a minute to start under TCG
            deploys.add(CompletableFuture.supplyAsync(() -> http().post().uri("/api/hosts/vm{n}/deploy", n).exchange()
                    .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody()));
        }
        for (CompletableFuture<Map<String, Object>> deploy : deploys) {
            Map<String, Object> deployed = deploy.get(6, TimeUnit.MINUTES);
            assertThat(deployed.get("state")).as("deploy: %s", deployed).isEqualTo("RUNNING");
        }
        List<Map<String, Object>> agents = http().get().uri("/api/agents").exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(agents).extracting(a -> a.get("id")).contains("vm1", "vm2");
        for (Map<String, Object> agent : agents) {
            List<?> devices = (List<?>) ((Map<?, ?>) agent.get("facts")).get("rdma_devices");
            assertThat(devices).as("rdma_devices of %s", agent.get("id")).isNotEmpty();
            assertThat(((Map<?, ?>) devices.get(0)).get("name")).isEqualTo("rxe0");
            assertThat(((Map<?, ?>) agent.get("facts")).get("data_address")).as("data address of %s", agent.get("id"))
                    .isEqualTo(lab.rdmaAddress(Integer.parseInt(((String) agent.get("id")).substring(2))));
        }

        Map<String, Object> matrix = Map.of(
                "name", "softroce rc send",
                "hosts", Map.of("pairs", List.of(List.of("vm2", "vm1"))),
                "base", Map.of("provider", "verbs", "op", "send", "transport", "rc", "iterations", ITERATIONS,
                        "verify", true),
                "dimensions", Map.of("msg_size", List.of(1024, 4096), "threads", List.of(1, 2)));
        long id = ((Number) http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON).bodyValue(matrix)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id"))
                .longValue();
        Map<String, Object> experiment = awaitEnd(id, Duration.ofMinutes(8));
        List<Map<String, Object>> runs = http().get().uri("/api/experiments/{id}/runs", id).exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
        if (!"FINISHED".equals(experiment.get("status"))) {
            assertThat(experiment.get("status")).as("experiment %s, runs %s%s", experiment, runs, whatTheLabSays()).isEqualTo("FINISHED");
        }
        assertThat(runs).hasSize(4).allSatisfy(r -> assertThat(r.get("status")).as("run %s", r).isEqualTo("FINISHED"));

        for (Map<String, Object> run : runs) {
            long runId = ((Number) run.get("id")).longValue();
            Map<?, ?> params = (Map<?, ?>) run.get("params");
            long threads = ((Number) params.get("threads")).longValue();
            long size = ((Number) params.get("msg_size")).longValue();
            Map<String, Object> summary = http().get().uri("/api/runs/{id}/summary", runId).exchange()
                    .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            long messages = threads * ITERATIONS;
            assertThat(((Number) summary.get("cycles")).longValue()).isEqualTo(messages);
            assertThat(((Number) summary.get("bytes")).longValue()).isEqualTo(messages * size);
            assertThat(((Number) summary.get("errors")).longValue()).isZero();
            assertThat(summary.get("device")).isEqualTo("rxe0");
            Map<?, ?> peer = (Map<?, ?>) summary.get("peer");
            assertThat(((Number) peer.get("messages")).longValue()).as("messages vm1 received").isEqualTo(messages);
            assertThat(((Number) peer.get("errors")).longValue()).as("payloads that failed verification").isZero();
            long[] stored = jdbc.sql("SELECT coalesce(sum(cycles), 0), count(DISTINCT thread) FROM run_interval WHERE run_id = ?")
                    .param(runId).query((rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}).single();
            assertThat(stored[0]).as("cycles the stored intervals of verbs run %d count", runId).isEqualTo(messages);
            assertThat(stored[1]).as("threads with intervals").isEqualTo(threads);
            assertThat(((Number) run.get("cyclesStored")).longValue()).isEqualTo(messages);
            String serverAgent = jdbc.sql("SELECT server_agent_id FROM run WHERE id = ?").param(runId).query(String.class).single();
            assertThat(serverAgent).isEqualTo("vm1");
        }

        Map<String, Object> curve = http().get().uri("/api/experiments/{id}/curve?x=msg_size&y=bw_avg_bps&series=threads", id)
                .exchange().expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        List<?> points = (List<?>) curve.get("points");
        assertThat(points).hasSize(4);
        for (Object p : points) {
            Map<?, ?> point = (Map<?, ?>) p;
            double stored = jdbc.sql("""
                    SELECT s.bw_avg_bps FROM run r JOIN run_summary s ON s.run_id = r.id
                    WHERE r.experiment_id = ? AND (r.params->>'msg_size')::bigint = ? AND (r.params->>'threads')::bigint = ?""")
                    .params(id, ((Number) point.get("x")).longValue(), ((Number) point.get("series")).longValue())
                    .query(Double.class).single();
            assertThat(((Number) point.get("y")).doubleValue()).isPositive().isEqualTo(stored);
        }

    }

    /** What each reference experiment's picture shows. */
    private static final Map<String, CurvePicture.Spec> PICTURES = Map.of(
            "1-thread-scalability", new CurvePicture.Spec("threads", false, "bw_avg_bps", "throughput [MB/s]", MIB, List.of("op")),
            "2-qp-sharing-and-locks", new CurvePicture.Spec("threads", false, "msg_rate", "message rate [k msg/s]", 1e3,
                    List.of("qp_sharing")),
            "3-qp-count", new CurvePicture.Spec("qps_per_thread", true, "msg_rate", "message rate [k msg/s]", 1e3,
                    List.of("msg_size")),
            "4-bandwidth-vs-size", new CurvePicture.Spec("msg_size", true, "bw_avg_bps", "bandwidth [MB/s]", MIB,
                    List.of("transport", "op")),
            "5-verbs-knobs", new CurvePicture.Spec("threads", false, "msg_rate", "message rate [k msg/s]", 1e3,
                    List.of("srq", "inline_size", "signal_every", "polling")),
            "6-tcp-vs-rdma", new CurvePicture.Spec("msg_size", true, "bw_avg_bps", "bandwidth [MB/s]", MIB,
                    List.of("provider", "threads")));

    /** Reference experiments whose picture is a chart of the dashboard's experiment page, by its chart name. */
    private static final Map<String, String> DASHBOARD_PICTURES = Map.of("7-latency-vs-size", "latencyVsSize",
            "8-nvmeof", "iopsVsIodepth", "9-knee-search", "kneeSearch");

    /**
     * How many times each configuration of a lab variant runs here: once by default (whether every configuration runs
     * is what this test checks, and one pass takes about half the time of the files' repeats: 2), "file" for the
     * repeats the file says (-Dqplab.experiments.repeats=file, with the pictures for the experiments' READMEs).
     */
    private static final String REPEATS = System.getProperty("qplab.experiments.repeats", "1");
    private static final com.fasterxml.jackson.databind.ObjectMapper YAML =
            new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    private static final com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>> JSON_OBJECT_TYPE =
            new com.fasterxml.jackson.core.type.TypeReference<>() { };

    /** For the report: how many runs, the seconds they ran in all, and the seconds between them (dispatch, setup). */
    private String runTimes(long experimentId) {
        return jdbc.sql("""
                SELECT count(*) || ' ran ' || round(coalesce(sum(extract(epoch FROM finished_at - started_at)), 0)) || ' s, '
                       || round(coalesce(extract(epoch FROM max(finished_at) - min(started_at))
                                         - sum(extract(epoch FROM finished_at - started_at)), 0)) || ' s between them'
                FROM run WHERE experiment_id = ?""").param(experimentId).query(String.class).single();
    }

    @Test
    @Order(2)
    void everyReferenceExperimentsLabVariantRunsToCompletion() throws Exception {
        Path pictures = Path.of(System.getProperty("qplab.experiments.pictures", "target/experiment-pictures")).toAbsolutePath();
        List<String> only = List.of(System.getProperty("qplab.experiments.only", "").split(",")).stream()
                .filter(name -> !name.isBlank()).toList();
        java.util.TreeSet<String> names = new java.util.TreeSet<>(PICTURES.keySet());
        names.addAll(DASHBOARD_PICTURES.keySet());
        if (!only.isEmpty()) {
            assertThat(names).as("experiments named by qplab.experiments.only").containsAll(only);
            names.retainAll(only);
        }
        List<String> failures = new ArrayList<>();
        Optional<CurvePicture> picture = CurvePicture.open(PORT);
        try {
            for (String name : names) {
                Map<String, Object> matrix = YAML.readValue(EXPERIMENTS.resolve(name).resolve("lab.yaml").toFile(), JSON_OBJECT_TYPE);
                if (!"file".equals(REPEATS)) {
                    matrix.put("repeats", Integer.parseInt(REPEATS));
                }
                long started = System.nanoTime();
                long id = submit(matrix);
                // each takes well under a minute here; a hung run fails after the 3 min run-timeout
                Map<String, Object> experiment = awaitEnd(id, Duration.ofMinutes(6));
                System.out.printf("%s: %s in %d s, runs %s%n", name, experiment.get("status"),
                        Duration.ofNanos(System.nanoTime() - started).toSeconds(), runTimes(id));
                List<Map<String, Object>> runs = http().get().uri("/api/experiments/{id}/runs", id).exchange()
                        .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
                List<String> bad = runs.stream().filter(r -> !"FINISHED".equals(r.get("status")))
                        .map(r -> r.get("id") + " " + r.get("status") + ": " + r.get("error")).toList();
                // every run's cycles add up (the engine's lab variants run by iterations; an nvmeof run's cycles are
                // fio's I/Os, which the controller has checked against its stored intervals) and no completion failed
                long wrong = jdbc.sql("""
                        SELECT count(*) FROM run r JOIN run_summary s ON s.run_id = r.id WHERE r.experiment_id = ?
                          AND (s.errors <> 0 OR CASE WHEN r.params->>'provider' = 'nvmeof' THEN s.cycles <= 0
                               ELSE s.cycles <> (r.params->>'threads')::bigint * (r.params->>'iterations')::bigint END)""")
                        .param(id).query(Long.class).single();
                if (!"FINISHED".equals(experiment.get("status")) || !bad.isEmpty() || wrong != 0) {
                    failures.add(name + ": " + experiment.get("status") + ", runs " + bad + ", " + wrong
                            + " summaries that do not add up");
                    if (!List.of("FINISHED", "FAILED", "CANCELLED").contains(experiment.get("status"))) {
                        // its queued runs would hold the hosts the next experiment needs
                        http().post().uri("/api/experiments/{id}/cancel", id).exchange().expectStatus().is2xxSuccessful();
                    }
                    Optional<String> stalled = stalledLink();
                    if (stalled.isPresent()) {
                        failures.add(stalled.get() + ": the experiments after " + name + " were not run");
                        break;
                    }
                    continue;
                }
                if (name.equals("9-knee-search")) {
                    Map<String, Object> search = http().get().uri("/api/experiments/{id}/search", id).exchange()
                            .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
                    System.out.printf("%s: %s; points %s%n", name, search.get("result"), search.get("points"));
                    Object result = search.get("result");
                    if (!(result instanceof Map<?, ?> r) || !List.of("knee", "cliff").contains(r.get("kind"))
                            || !Boolean.TRUE.equals(r.get("bracketed"))) {
                        failures.add(name + ": the search did not bracket a knee or a cliff: " + search.get("state")
                                + ", " + result);
                    }
                }
                if (name.equals("8-nvmeof")) {
                    nvmeofExperiment = id;
                }
                if (picture.isPresent()) {
                    Path png = pictures.resolve(name).resolve("softroce.png");
                    if (DASHBOARD_PICTURES.containsKey(name)) {
                        picture.get().dashboardChart(id, DASHBOARD_PICTURES.get(name), png);
                    } else {
                        String title = experiment.get("name") + " — Soft-RoCE lab (rdma_rxe, qemu TCG)";
                        picture.get().draw(title, PICTURES.get(name), CurvePicture.points(jdbc, id, PICTURES.get(name)), png);
                    }
                }
            }
        } finally {
            picture.ifPresent(CurvePicture::close);
        }
        if (!failures.isEmpty()) {
            assertThat(failures).as("reference experiments that did not run to completion in the lab%s", whatTheLabSays()).isEmpty();
        }
    }

    /** The nvmeof points of the lab tests: vm2 the initiator, vm1 the target (null_blk), 4 KiB random reads. */
    private static Map<String, Object> nvmeofMatrix(String name, long runtimeMs, List<String> transports) {
        return Map.of("name", name, "hosts", Map.of("pairs", List.of(List.of("vm2", "vm1"))),
                "base", Map.of("provider", "nvmeof", "rw", "randread", "bs", NVMEOF_BS, "iodepth", 4, "runtime_ms", runtimeMs),
                "dimensions", Map.of("transport", transports));
    }

    private static final int NVMEOF_BS = 4096;

    /** The reference experiment 8-nvmeof's lab variant, once it ran to its end here (else null). */
    private static Long nvmeofExperiment;

    /**
     * NVMe-oF's runs add up: those of 8-nvmeof's lab variant (rdma, tcp and local, reads and writes) where it ran just
     * before, else (-Dqplab.experiments.only without it) a run over rdma and one over tcp of its own.
     */
    @Test
    @Order(3)
    void runsNvmeofAcrossTheVmsOverRdmaAndTcpAndLeavesNothingBehind() throws Exception {
        List<Map<String, Object>> agents = http().get().uri("/api/agents").exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
        for (String[] role : new String[][] {{"vm1", "target"}, {"vm2", "initiator"}}) {
            Map<?, ?> facts = (Map<?, ?>) agents.stream().filter(a -> role[0].equals(a.get("id"))).findFirst().orElseThrow().get("facts");
            Map<?, ?> missing = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) facts.get("nvmeof")).get("missing")).get(role[1]);
            for (String transport : List.of("rdma", "tcp")) {
                assertThat((List<?>) missing.get(transport)).as("what %s lacks as an NVMe-oF %s over %s: %s", role[0], role[1],
                        transport, facts.get("nvmeof")).isEmpty();
            }
        }
        long id = nvmeofExperiment != null ? nvmeofExperiment : submit(nvmeofMatrix("softroce nvmeof", 2000, List.of("rdma", "tcp")));
        Map<String, Object> experiment = awaitEnd(id, Duration.ofMinutes(4));
        List<Map<String, Object>> runs = runsOf(id);
        if (!"FINISHED".equals(experiment.get("status"))) {
            assertThat(experiment.get("status")).as("experiment %s, runs %s%s", experiment, runs, whatTheLabSays()).isEqualTo("FINISHED");
        }
        assertThat(runs).hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(r -> assertThat(r.get("status")).as("run %s", r).isEqualTo("FINISHED"));
        assertThat(runs).extracting(r -> (Object) ((Map<?, ?>) r.get("params")).get("transport")).contains("rdma", "tcp");
        for (Map<String, Object> run : runs) {
            assertTheNvmeofRunAddsUp(((Number) run.get("id")).longValue(), (String) ((Map<?, ?>) run.get("params")).get("transport"));
        }
        assertNothingLeftBehind();
    }

    @Test
    @Order(4)
    void theInitiatorsAgentKilledMidRunIsRedeployedAndTheRunTriedAgainLeavesNothingBehind() throws Exception {
        long id = submit(nvmeofMatrix("softroce nvmeof, the initiator's agent killed", 20_000, List.of("rdma")));
        // killed from inside the VM 2 s after fio started (a poll from here takes seconds per ssh on a loaded machine,
        // and the run lasts 20 s); fio of the run is what it left running
        CommandResult kill = lab.ssh(2, Duration.ofMinutes(4), "for i in $(seq 400); do if pgrep -x fio >/dev/null; then sleep 2; "
                + "pgrep -x fio >/dev/null && kill -9 $(cat /root/.qplab/agent.pid) && exit 0; fi; sleep 0.5; done; "
                + "echo 'fio did not run within 200 s' >&2; exit 1");
        List<Map<String, Object>> before = runsOf(id);
        assertThat(kill.exitCode()).as("kill -9 of vm2's agent while fio ran: %s; runs %s%s", kill.stderr(), before, whatTheLabSays())
                .isZero();
        long killed = before.stream().filter(r -> "RUNNING".equals(r.get("status"))).mapToLong(r -> ((Number) r.get("id")).longValue())
                .findFirst().orElseThrow(() -> new AssertionError("no run RUNNING when vm2's agent was killed: " + before));
        // a new agent process: its start cleans up what the killed one left (fio, the connected controller)
        Map<String, Object> deployed = http().post().uri("/api/hosts/vm2/deploy").exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(deployed.get("state")).as("redeploy: %s", deployed).isEqualTo("RUNNING");

        Map<String, Object> experiment = awaitEnd(id, Duration.ofMinutes(5));
        List<Map<String, Object>> runs = runsOf(id);
        if (!"FINISHED".equals(experiment.get("status"))) {
            assertThat(experiment.get("status")).as("experiment %s, runs %s%s", experiment, runs, whatTheLabSays()).isEqualTo("FINISHED");
        }
        // the killed run failed, saying what the target saw ("the initiator closed the control connection before it
        // said done") or that vm2 was lost; the point's next run (its retry) finished
        Map<String, Object> killedOne = runs.stream().filter(r -> ((Number) r.get("id")).longValue() == killed).findFirst().orElseThrow();
        assertThat(killedOne.get("status")).as("the killed run %s", killedOne).isEqualTo("FAILED");
        assertThat((String) killedOne.get("error")).as("the killed run's error").containsAnyOf("initiator", "vm2");
        Map<String, Object> next = runs.stream().filter(r -> ((Number) r.get("id")).longValue() > killed)
                .max(java.util.Comparator.comparing(r -> ((Number) r.get("id")).longValue())).orElseThrow();
        assertThat(next.get("status")).as("the next run %s", next).isEqualTo("FINISHED");
        assertTheNvmeofRunAddsUp(((Number) next.get("id")).longValue(), "rdma");
        assertNothingLeftBehind();
    }

    /** IOPS × bs agrees with BW within 1 %, and the stored histogram counts exactly fio's I/Os. */
    private void assertTheNvmeofRunAddsUp(long runId, String transport) {
        Map<String, Object> summary = http().get().uri("/api/runs/{id}/summary", runId).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(summary).as("run %d's summary", runId).containsEntry("provider", "nvmeof").containsEntry("transport", transport);
        double iops = ((Number) summary.get("msg_rate")).doubleValue();
        double bw = ((Number) summary.get("bw_avg_bps")).doubleValue();
        assertThat(iops).as("run %d: IOPS", runId).isPositive();
        assertThat(iops * NVMEOF_BS).as("run %d: IOPS × bs [B/s] against bw_avg_bps", runId)
                .isCloseTo(bw, org.assertj.core.data.Percentage.withPercentage(1));
        Map<?, ?> fio = (Map<?, ?>) summary.get("fio");
        long fioIos = 0;
        for (String direction : List.of("read", "write")) {
            if (fio.get(direction) instanceof Map<?, ?> d && d.get("total_ios") instanceof Number n) {
                fioIos += n.longValue();
            }
        }
        assertThat(fioIos).as("run %d: fio's I/O count (%s)", runId, fio).isPositive();
        assertThat(((Number) summary.get("cycles")).longValue()).as("run %d: cycles", runId).isEqualTo(fioIos);
        Map<String, Object> histogram = http().get().uri("/api/runs/{id}/histogram", runId).exchange()
                .expectStatus().isOk().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long binned = ((List<?>) histogram.get("bins")).stream().mapToLong(b -> ((Number) ((Map<?, ?>) b).get("count")).longValue()).sum();
        assertThat(binned).as("run %d: I/Os in the stored histogram", runId).isEqualTo(fioIos);
        long stored = jdbc.sql("SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = ?").param(runId)
                .query(Long.class).single();
        assertThat(stored).as("run %d: I/Os in the stored intervals", runId).isEqualTo(fioIos);
    }

    /** What qplab may have made on a VM: nvmet subsystems, ports and hosts, qplab's null_blk items, NVMe controllers, fio. */
    private static final String LEFTOVERS = "C=/sys/kernel/config; for d in subsystems ports hosts; do "
            + "[ -d $C/nvmet/$d ] && ls -A $C/nvmet/$d | sed \"s|^|nvmet/$d/|\"; done; "
            + "[ -d $C/nullb ] && ls -A $C/nullb | grep '^qplab-' | sed 's|^|nullb/|'; "
            + "ls -A /sys/class/nvme 2>/dev/null | sed 's|^|/sys/class/nvme/|'; pgrep -a -x fio | sed 's|^|process |'; true";

    /** Nothing of the runs on either VM (a teardown may end a moment after the run's end is stored: 30 s). */
    private static void assertNothingLeftBehind() throws Exception {
        for (int vm = 1; vm <= 2; vm++) {
            CommandResult left = lab.ssh(vm, Duration.ofSeconds(60), LEFTOVERS);
            for (int i = 0; i < 30 && left.succeeded() && !left.stdout().isBlank(); i++) {
                Thread.sleep(1000);
                left = lab.ssh(vm, Duration.ofSeconds(60), LEFTOVERS);
            }
            assertThat(left.exitCode()).as("listing vm%d: %s", vm, left.stderr()).isZero();
            assertThat(left.stdout().strip()).as("what the runs left behind on vm%d", vm).isEmpty();
        }
    }

    private static long submit(Map<String, Object> matrix) {
        return ((Number) http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON).bodyValue(matrix)
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody().get("id"))
                .longValue();
    }

    private static List<Map<String, Object>> runsOf(long experimentId) {
        return http().get().uri("/api/experiments/{id}/runs", experimentId).exchange()
                .expectStatus().isOk().expectBody(JSON_ARRAY).returnResult().getResponseBody();
    }

    @Test
    @Order(5)
    void stopsTheAgents() {
        for (int vm = 1; vm <= 2; vm++) {
            Map<String, Object> stopped = http().post().uri("/api/hosts/vm{n}/stop", vm).exchange().expectStatus().isOk()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(stopped.get("state")).isEqualTo("STOPPED");
        }
    }

    /** A VM whose RDMA link stopped transmitting (see lab/README.md), if any: nothing more can run across it. */
    private static Optional<String> stalledLink() {
        for (int vm = 1; vm <= 2; vm++) {
            try {
                if (lab.ssh(vm, Duration.ofSeconds(30), "dmesg").stdout().contains("NETDEV WATCHDOG")) {
                    return Optional.of("vm" + vm + "'s eth1 stopped transmitting (NETDEV WATCHDOG in its dmesg)");
                }
            } catch (IOException e) {
                return Optional.of("vm" + vm + " does not answer over ssh: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted");
            }
        }
        return Optional.empty();
    }

    /** For a failure message: each agent's last log lines and the VM's own view of its RDMA link. */
    private static String whatTheLabSays() {
        StringBuilder out = new StringBuilder();
        for (int vm = 1; vm <= 2; vm++) {
            out.append("\n--- vm").append(vm).append(": agent log\n");
            try {
                out.append(http().get().uri("/api/hosts/vm{n}/logs?lines=30", vm).exchange().expectBody(String.class)
                        .returnResult().getResponseBody());
                out.append("--- vm").append(vm).append(": eth1 and rxe0\n").append(lab.ssh(vm, Duration.ofSeconds(30),
                        "echo tx_packets $(cat /sys/class/net/eth1/statistics/tx_packets); dmesg | grep -E 'NETDEV WATCHDOG|rxe' | tail -5")
                        .describe());
            } catch (Exception | AssertionError e) {
                out.append("(not available: ").append(e).append(")\n");
            }
        }
        return out.toString();
    }

    private Map<String, Object> awaitEnd(long id, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> experiment = Map.of();
        while (System.nanoTime() < deadline) {
            experiment = http().get().uri("/api/experiments/{id}", id).exchange().expectStatus().isOk()
                    .expectBody(JSON_OBJECT).returnResult().getResponseBody();
            if (List.of("FINISHED", "FAILED", "CANCELLED").contains(experiment.get("status"))) {
                return experiment;
            }
            Thread.sleep(1000);
        }
        return experiment;
    }

    @org.junit.jupiter.api.BeforeEach
    void adminToken() {
        if (token == null) {
            token = tokens.issue("admin", "soft-roce deploy test").token();
        }
    }

    private static WebTestClient http() {
        return WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + PORT).defaultHeader("Authorization", "Bearer " + token)
                .responseTimeout(Duration.ofMinutes(5)).build();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
