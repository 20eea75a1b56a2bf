package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.qplab.lab.VerbsEngineIntegrationTests.pair;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.qplab.lab.VerbsEngineIntegrationTests.Pair;

/**
 * The engine's latency mode on rdma_rxe (perftest's ib_send_lat, ib_write_lat, ib_read_lat): qpbench --lat as
 * server in VM 1 and client in VM 2. Lean on purpose, a few hundred iterations a run (a round trip through the
 * TCG lab takes milliseconds): every iteration is one cycle, the figures are ordered, the server answered every
 * ping, and the table qpbench prints is perftest's, holding the summary's values.
 */
@ExtendWith(SoftRoceLabExtension.class)
class VerbsLatencyIntegrationTests {

    private static final int ITERATIONS = 300;
    /** perftest_parameters.h's RESULT_FMT_LAT, as ib_send_lat prints it (trailing space included). */
    private static final String PERFTEST_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    private static final Map<String, String> TITLES = Map.of("send", "Send Latency Test", "write",
            "RDMA_Write Latency Test", "read", "RDMA_Read Latency Test", "atomic_fadd",
            "Atomic FETCH_AND_ADD Latency Test", "atomic_cswap", "Atomic CMP_AND_SWAP Latency Test");

    @Test
    void rcSendWriteAndReadReportPerftestsLatencyOfEveryIteration(SoftRoceLab lab) throws Exception {
        for (String op : List.of("send", "write", "read")) {
            assertLatencyRun(pair(lab, "--lat --op=" + op + " -c RC -s 64 -n " + ITERATIONS), op, 1);
        }
    }

    @Test
    void udSendAndTwoThreadsOfWritesPingPong(SoftRoceLab lab) throws Exception {
        assertLatencyRun(pair(lab, "--perftest=ib_send_lat -c UD -s 64 -n " + ITERATIONS), "send", 1);
        assertLatencyRun(pair(lab, "--lat --op=write --threads=2 -s 64 -n " + ITERATIONS), "write", 2);
    }

    /** ib_atomic_lat: one atomic in flight, its whole round trip recorded (as a read). */
    @Test
    void atomicsReportTheRoundTripOfEveryOperation(SoftRoceLab lab) throws Exception {
        assertLatencyRun(pair(lab, "--lat -A FETCH_AND_ADD -n " + ITERATIONS), "atomic_fadd", 1, 8);
        assertLatencyRun(pair(lab, "--lat -A CMP_AND_SWAP -n " + ITERATIONS), "atomic_cswap", 1, 8);
    }

    private static void assertLatencyRun(Pair run, String op, int threads) {
        assertLatencyRun(run, op, threads, 64);
    }

    private static void assertLatencyRun(Pair run, String op, int threads, long size) {
        boolean fetches = op.equals("read") || op.startsWith("atomic_");
        Map<String, Object> client = run.client();
        Map<String, Object> server = run.server();
        assertThat(client.get("status")).as("client: %s", client.get("error")).isEqualTo("ok");
        assertThat(server.get("status")).as("server: %s", server.get("error")).isEqualTo("ok");
        assertThat(client.get("mode")).isEqualTo("latency");
        assertThat(client.get("op")).isEqualTo(op);
        assertThat(run.clientLong("iterations")).isEqualTo(ITERATIONS);
        assertThat(run.clientLong("cycles")).as("one cycle per iteration").isEqualTo((long) threads * ITERATIONS);
        assertThat(run.clientLong("errors")).as("completions with an error").isZero();
        // perftest's lat tests go inline by default: rxe's max_inline_data is far above 64 B
        assertThat(((Number) client.get("inline_size")).longValue()).isEqualTo(fetches ? 0 : 64);
        Map<?, ?> latency = (Map<?, ?>) client.get("latency_us");
        assertOrdered(latency);
        List<?> perThread = (List<?>) client.get("per_thread");
        assertThat(perThread).hasSize(threads).allSatisfy(t -> {
            assertThat(((Number) ((Map<?, ?>) t).get("cycles")).longValue()).isEqualTo(ITERATIONS);
            assertOrdered((Map<?, ?>) ((Map<?, ?>) t).get("latency_us"));
        });
        // the server answered every ping (a read needs no answer: the server's side only waits)
        long answered = fetches ? 0 : (long) threads * ITERATIONS;
        assertThat(((Number) server.get("messages")).longValue()).as("messages the server answered").isEqualTo(answered);
        assertThat(run.peer("messages")).isEqualTo(answered);
        assertThat(run.peer("missing")).isZero();
        assertTable(run.clientOutput(), op, latency, size);
    }

    private static void assertOrdered(Map<?, ?> l) {
        assertThat(number(l, "min")).as("t_min").isPositive();
        assertThat(number(l, "min")).isLessThanOrEqualTo(number(l, "typical"));
        assertThat(number(l, "typical")).isLessThanOrEqualTo(number(l, "p99"));
        assertThat(number(l, "p99")).isLessThanOrEqualTo(number(l, "p999"));
        assertThat(number(l, "p999")).isLessThanOrEqualTo(number(l, "max"));
        assertThat(number(l, "avg")).isBetween(number(l, "min"), number(l, "max"));
    }

    /** perftest's title, its exact result header, and one row of nine numbers: the summary's, in µs. */
    private static void assertTable(String output, String op, Map<?, ?> latency, long size) {
        List<String> lines = output.lines().toList();
        assertThat(lines).as(output).contains("                    " + TITLES.get(op));
        int header = lines.indexOf(PERFTEST_HEADER);
        assertThat(header).as("perftest's latency header in:%n%s", output).isPositive();
        String[] cells = lines.get(header + 1).strip().split("\\s+");
        assertThat(cells).as(lines.get(header + 1)).hasSize(9);
        assertThat(cells[0]).isEqualTo(Long.toString(size));
        assertThat(cells[1]).isEqualTo(Integer.toString(ITERATIONS));
        List<String> keys = List.of("min", "max", "typical", "avg", "stdev", "p99", "p999");
        for (int i = 0; i < keys.size(); i++) {
            // printed with 2 decimals (C's rounding of the binary value, hence the half-cent margin)
            assertThat(cells[2 + i]).as(keys.get(i)).matches("\\d+\\.\\d\\d");
            assertThat(Double.parseDouble(cells[2 + i])).as(keys.get(i)).isCloseTo(number(latency, keys.get(i)),
                    within(0.0051));
        }
        assertThat(lines.get(header + 2)).as("perftest's closing line").matches("-{20,}");
    }

    private static double number(Map<?, ?> map, String key) {
        return ((Number) map.get(key)).doubleValue();
    }
}
