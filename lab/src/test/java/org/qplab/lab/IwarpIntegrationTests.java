package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.qplab.lab.VerbsEngineIntegrationTests.Pair;

/**
 * The verbs provider over iWARP: siw (Soft-iWARP) built from the kernel's source by `lab siw` and added as siw0 on
 * each VM's eth2, beside rxe0. iWARP connects RC QPs through rdma_cm only: bandwidth, latency and bidirectional runs
 * over it add up and verify; what iWARP cannot do is refused by the plan (before any verbs object), naming the device
 * and the rule. Skipped, with the reason, where the kernel's source or build tree is missing (`lab siw check`).
 */
@ExtendWith(SoftRoceLabExtension.class)
class IwarpIntegrationTests {

    private static final int SERVER = 1;
    private static final int CLIENT = 2;
    private static String server;

    @BeforeAll
    static void siwBesideRxe(SoftRoceLab lab) throws Exception {
        Optional<String> unavailable = lab.iwarpUnavailability();
        assumeTrue(unavailable.isEmpty(), () -> unavailable.orElseThrow());
        lab.iwarpOn();
        server = lab.iwarpAddress(SERVER);
    }

    @AfterAll
    static void siwOff(SoftRoceLab lab) throws Exception {
        if (server != null) {
            lab.iwarpOff(); // the other lab classes' runs that name no device must find rxe0 alone
        }
    }

    @Test
    void writeSendAndReadOverRdmaCmAddUpAndVerify(SoftRoceLab lab) throws Exception {
        for (String op : List.of("write", "send", "read")) {
            // the target of a write or read spins as perftest -R's does (target_wait spin; a receiver polls its CQ)
            boolean target = !op.equals("send");
            Pair run = VerbsEngineIntegrationTests.pairAt(lab, server, "-d siw0 -R --op=" + op
                    + " -q 2 -s 4096 -n 300 --verify" + (target ? " --target-wait=spin" : ""));
            assertIwarpRun(run, 2L * 300, 4096);
            // the target of a write or read sees no completion: it verifies its buffer (errors, missing: zero)
            assertThat(run.peer("messages")).as("%s: messages the server received", op)
                    .isEqualTo(op.equals("send") ? 600 : 0);
            assertThat(run.server().get("target_wait")).as("%s: the server's summary", op)
                    .isEqualTo(target ? "spin" : null);
            assertThat(run.clientOutput()).contains("Device          : siw0     Transport type         : IW")
                    .contains("rdma_cm QPs            : ON");
        }
    }

    /** perftest's *_lat -R: one ping-pong (send, write) or one read in flight, every sample counted. */
    @Test
    void latencyTestsRunOverIwarp(SoftRoceLab lab) throws Exception {
        for (String op : List.of("write", "send", "read")) {
            Pair run = VerbsEngineIntegrationTests.pairAt(lab, server, "-d siw0 -R --lat --op=" + op + " -s 64 -n 200");
            assertThat(run.client().get("status")).as("%s: %s", op, run.client().get("error")).isEqualTo("ok");
            assertThat(run.client().get("mode")).isEqualTo("latency");
            assertThat(run.clientLong("cycles")).as(op).isEqualTo(200);
            assertThat(run.clientLong("errors")).isZero();
            assertThat(run.client().get("device")).isEqualTo("siw0");
            assertThat(run.client().get("device_transport")).isEqualTo("iwarp");
            assertThat(run.clientOutput()).contains(op.equals("read") ? "Read Latency Test" : op.equals("send")
                    ? "Send Latency Test" : "RDMA_Write Latency Test");
        }
    }

    /**
     * perftest -b over rdma_cm: the client connects its sending QPs to the server's listener, then the server its
     * own to the client's; each send end reaps its receives in its sending loop (no receiving thread).
     */
    @Test
    void bidirectionalSendCarriesTheWholeRunBothWaysInOneLoop(SoftRoceLab lab) throws Exception {
        Pair run = VerbsEngineIntegrationTests.pairAt(lab, server, "-d siw0 -R --op=send -b -q 2 -s 1024 -n 400 --verify");
        assertIwarpRun(run, 2L * 400, 1024);
        for (Map<String, Object> side : List.of(run.client(), run.server())) {
            assertThat(side.get("bidirectional")).isEqualTo(true);
            assertThat(((Number) side.get("bytes")).longValue()).as("bytes %s sent", side.get("role"))
                    .isEqualTo(2L * 400 * 1024);
            @SuppressWarnings("unchecked")
            Map<String, Object> received = (Map<String, Object>) side.get("received");
            assertThat(((Number) received.get("bytes")).longValue()).as("bytes %s received", side.get("role"))
                    .isEqualTo(2L * 400 * 1024);
            assertThat(side.get("bidirectional_loop")).isEqualTo("one");
            assertThat(((Number) side.get("worker_threads")).longValue()).isEqualTo(1);
        }
    }

    /**
     * UD, UC, XRC and RC without rdma_cm have no iWARP form; siw has no atomics. Each is refused by the plan, before
     * any QP is made (not as ibv_create_qp's EOPNOTSUPP or ibv_modify_qp's EINVAL), naming siw0 and the rule; the
     * engine's device inventory (the agent's hello, where submit refuses the same) says iwarp.
     */
    @Test
    void whatIwarpCannotDoIsRefusedNamingTheDeviceAndTheRule(SoftRoceLab lab) throws Exception {
        Map<String, String> refusals = Map.of(
                "-c UD --op=send -s 64", "transport ud: siw0 is an iWARP device (iWARP has reliable connections only",
                "-c UC --op=write -s 64", "transport uc: siw0 is an iWARP device",
                "--op=write -s 64", "rdma_cm false: siw0 is an iWARP device, whose QPs connect only through rdma_cm",
                "-R -A FETCH_AND_ADD", "op atomic_fadd needs RDMA atomics: siw0 reports atomic_cap IBV_ATOMIC_NONE");
        StringBuilder script = new StringBuilder();
        refusals.keySet().forEach(args -> script.append(VerbsEngineIntegrationTests.qpbench())
                .append(" --provider=verbs -d siw0 -n 10 ").append(args) // loopback: refused before it connects
                .append(" 2>&1; echo \"exit $?\"; "));
        script.append(VerbsEngineIntegrationTests.qpbench()).append(" --devices");
        CommandResult result = lab.ssh(CLIENT, Duration.ofSeconds(60), script.toString());
        String out = result.stdout();
        refusals.forEach((args, refusal) -> assertThat(out).as(args).contains("qpbench: " + refusal));
        assertThat(out).doesNotContain("exit 0").doesNotContain("ibv_create_qp").doesNotContain("ibv_modify_qp");
        assertThat(out).containsPattern("\"name\":\"siw0\",\"transport\":\"iwarp\"")
                .containsPattern("\"name\":\"rxe0\",\"transport\":\"ib\"");
    }

    private static void assertIwarpRun(Pair run, long messages, long size) {
        assertThat(run.client().get("status")).as("client: %s", run.client().get("error")).isEqualTo("ok");
        assertThat(run.server().get("status")).as("server: %s", run.server().get("error")).isEqualTo("ok");
        assertThat(run.clientLong("messages")).isEqualTo(messages);
        assertThat(run.clientLong("bytes")).isEqualTo(messages * size);
        assertThat(run.clientLong("errors")).as("completions with an error").isZero();
        assertThat(run.client().get("device")).isEqualTo("siw0");
        assertThat(run.client().get("device_transport")).isEqualTo("iwarp");
        assertThat(run.client().get("rdma_cm")).isEqualTo(true);
        assertThat(run.peer("errors")).isZero();
        assertThat(run.peer("missing")).isZero();
    }
}
