package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.qplab.protocol.Interval;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** FioOutput on fio json+ output captured in the lab (src/test/resources/fio/README.md). */
class FioOutputTests {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final String RANDREAD = "randread-4k-qd16-rdma.json";
    private static final String RANDRW = "randrw70-8k-qd4-nj2-size-rdma.json";

    static String fixture(String name) throws IOException {
        try (InputStream in = FioOutputTests.class.getResourceAsStream("/fio/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The fixture cut into its dumps' texts, at the lines that are a lone "{" (how fio starts each). */
    static List<String> dumpTexts(String text) {
        List<String> dumps = new ArrayList<>();
        int start = 0;
        for (int i = text.indexOf("\n{\n"); i >= 0; i = text.indexOf("\n{\n", i + 1)) {
            dumps.add(text.substring(start, i + 1));
            start = i + 1;
        }
        dumps.add(text.substring(start));
        return dumps;
    }

    private static FioOutput read(String text) {
        FioOutput out = new FioOutput();
        out.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    private static JsonNode finalReport(String text) {
        List<String> dumps = dumpTexts(text);
        return JSON.readTree(dumps.get(dumps.size() - 1));
    }

    private static long sum(JsonNode report, String field) {
        long s = 0;
        for (String d : List.of("read", "write", "trim")) {
            s += report.path("jobs").path(0).path(d).path(field).asLong();
        }
        return s;
    }

    private static long clatN(JsonNode report) {
        long s = 0;
        for (String d : List.of("read", "write", "trim")) {
            s += report.path("jobs").path(0).path(d).path("clat_ns").path("N").asLong();
        }
        return s;
    }

    private static List<Interval> drained(FioOutput out) {
        List<Interval> into = new ArrayList<>();
        out.drainIntervals(into);
        return into;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @ParameterizedTest
    @ValueSource(strings = {RANDREAD, RANDRW})
    void closesOneIntervalPerDumpWhoseCyclesAddUpToFiosIoCount(String name) throws IOException {
        String text = fixture(name);
        JsonNode report = finalReport(text);
        FioOutput out = read(text);
        List<Interval> intervals = new ArrayList<>();
        out.drainIntervals(intervals);
        Map<String, Object> summary = out.summary();

        int dumps = dumpTexts(text).size();
        assertThat(dumps).as("dumps in the fixture").isEqualTo(name.equals(RANDREAD) ? 5 : 9);
        assertThat(out.dumps()).isEqualTo(dumps);
        assertThat(intervals).as("one interval per dump: every dump of these runs has new I/O").hasSize(dumps);
        assertThat(intervals).extracting(Interval::index).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, dumps).boxed().toList());
        long cycles = intervals.stream().mapToLong(Interval::cycles).sum();
        assertThat(cycles).as("Σ interval cycles = final clat N").isEqualTo(clatN(report))
                .as("= total_ios of every direction").isEqualTo(sum(report, "total_ios"))
                .as("= the summary's cycles").isEqualTo(summary.get("cycles"));
        assertThat(summary.get("messages")).isEqualTo(cycles);
        assertThat(intervals.stream().mapToLong(Interval::bytes).sum()).as("Σ interval bytes = io_bytes")
                .isEqualTo(sum(report, "io_bytes")).isEqualTo(summary.get("bytes"));
        assertThat(summary.get("intervals")).isEqualTo((long) dumps);
        assertThat((double) summary.get("bw_peak_bps")).as("the busiest interval's bytes/s")
                .isEqualTo(intervals.stream().mapToDouble(iv -> iv.bytes() * 1e9 / (iv.lastEndNs() - iv.firstStartNs()))
                        .max().orElseThrow());

        long previousEnd = 0;
        for (Interval iv : intervals) {
            assertThat(iv.thread()).isZero();
            assertThat(iv.span()).isEqualTo(1);
            assertThat(iv.messages()).isEqualTo(iv.cycles());
            assertThat(iv.cycles()).isPositive();
            assertThat(java.util.Arrays.stream(iv.counts()).allMatch(c -> c > 0)).as("every count above 0").isTrue();
            assertThat(java.util.Arrays.stream(iv.counts()).sum()).as("histogram total").isEqualTo(iv.cycles());
            for (int i = 1; i < iv.buckets().length; i++) {
                assertThat(iv.buckets()[i]).as("buckets ascend").isGreaterThan(iv.buckets()[i - 1]);
            }
            assertThat(iv.minNs()).isLessThanOrEqualTo(iv.maxNs());
            assertThat(iv.firstStartNs()).as("interval " + iv.index() + " starts where the last ended")
                    .isEqualTo(previousEnd);
            assertThat(iv.lastEndNs()).as("ns since fio's start, one status interval (500 ms) on")
                    .isBetween(iv.firstStartNs() + 50_000_000, iv.firstStartNs() + 1_000_000_000);
            previousEnd = iv.lastEndNs();
        }
        assertThat((double) previousEnd).as("the last interval ends at fio's runtime")
                .isCloseTo((long) summary.get("duration_ns"), within(20e6));
        long min = (long) map(summary.get("cycle_ns")).get("min");
        long max = (long) map(summary.get("cycle_ns")).get("max");
        assertThat(intervals).as("intervals within fio's clat min and max")
                .allMatch(iv -> iv.minNs() >= min && iv.maxNs() <= max);
        assertThat(intervals.get(intervals.size() - 1).maxNs()).as("the final interval clamps to clat max")
                .isLessThanOrEqualTo(max);
    }

    @ParameterizedTest
    @ValueSource(strings = {RANDREAD, RANDRW})
    void reportsIopsAndBandwidthThatAgreeWithTheBlockSize(String name) throws IOException {
        String text = fixture(name);
        JsonNode report = finalReport(text);
        Map<String, Object> summary = read(text).summary();
        Map<String, Object> fio = map(summary.get("fio"));

        long bs = name.equals(RANDREAD) ? 4096 : 8192;
        assertThat(fio.get("bs")).isEqualTo(bs);
        double iops = (double) summary.get("iops");
        double bw = (double) summary.get("bw_avg_bps");
        assertThat(iops).isEqualTo(summary.get("msg_rate"))
                .isCloseTo(report.path("jobs").path(0).path("read").path("iops").asDouble()
                        + report.path("jobs").path(0).path("write").path("iops").asDouble(), within(1e-6));
        assertThat(iops * bs).as("IOPS × bs vs BW (bytes/s)").isCloseTo(bw, within(bw * 0.01));
        assertThat(bw).as("bytes/s over fio's runtime")
                .isCloseTo((long) summary.get("bytes") * 1e9 / (long) summary.get("duration_ns"), within(bw * 0.01));
        assertThat((double) summary.get("bw_peak_bps")).as("the busiest interval").isGreaterThan(bw * 0.5);
        assertThat(fio.get("version")).isEqualTo("fio-3.33");
        assertThat(fio.get("iodepth")).isEqualTo(name.equals(RANDREAD) ? 16L : 4L);
        assertThat(fio.get("numjobs")).isEqualTo(name.equals(RANDREAD) ? 1L : 2L);
        assertThat(map(fio.get("read")).get("total_ios")).isEqualTo(name.equals(RANDREAD) ? 2059L : 1421L);
        assertThat(map(fio.get("write")).get("total_ios")).isEqualTo(name.equals(RANDREAD) ? 0L : 627L);
        assertThat(summary.get("errors")).isEqualTo(0L);
    }

    @Test
    void percentilesFromTheHistogramAgreeWithFiosWithinItsBinWidth() throws IOException {
        String text = fixture(RANDREAD);
        JsonNode clat = finalReport(text).path("jobs").path(0).path("read").path("clat_ns");
        Map<String, Object> summary = read(text).summary();
        Map<String, Object> cycleNs = map(summary.get("cycle_ns"));
        Map<String, Object> latencyUs = map(summary.get("latency_us"));

        // fio's bins are 1/64 of a power of two wide, qplab's buckets 1/128: a percentile lands within one fio bin
        for (String[] p : new String[][] {{"median", "50.000000"}, {"p99", "99.000000"}, {"p999", "99.900000"}}) {
            long fio = clat.path("percentile").path(p[1]).asLong();
            assertThat((long) cycleNs.get(p[0])).as(p[0] + " ns vs fio's " + fio).isCloseTo(fio, within(fio / 64));
        }
        assertThat(cycleNs.get("min")).isEqualTo(clat.path("min").asLong());
        assertThat(cycleNs.get("max")).isEqualTo(clat.path("max").asLong());
        assertThat((double) cycleNs.get("avg")).isCloseTo(clat.path("mean").asDouble(), within(1e-6));
        assertThat((double) cycleNs.get("stdev")).isCloseTo(clat.path("stddev").asDouble(), within(1e-3));
        assertThat((double) latencyUs.get("typical")).as("one direction: fio's own median, µs")
                .isEqualTo(clat.path("percentile").path("50.000000").asLong() / 1e3);
        assertThat((double) latencyUs.get("p999")).isEqualTo(clat.path("percentile").path("99.900000").asLong() / 1e3);
        assertThat((double) latencyUs.get("min")).isEqualTo(clat.path("min").asLong() / 1e3);
        assertThat((double) latencyUs.get("avg")).isCloseTo(clat.path("mean").asDouble() / 1e3, within(1e-9));
    }

    @Test
    void mergesReadsAndWritesIntoOneLatencyDistribution() throws IOException {
        String text = fixture(RANDRW);
        JsonNode job = finalReport(text).path("jobs").path(0);
        JsonNode r = job.path("read").path("clat_ns");
        JsonNode w = job.path("write").path("clat_ns");
        Map<String, Object> summary = read(text).summary();
        Map<String, Object> cycleNs = map(summary.get("cycle_ns"));

        assertThat(cycleNs.get("min")).isEqualTo(Math.min(r.path("min").asLong(), w.path("min").asLong()));
        assertThat(cycleNs.get("max")).isEqualTo(Math.max(r.path("max").asLong(), w.path("max").asLong()));
        double mean = (r.path("mean").asDouble() * r.path("N").asLong() + w.path("mean").asDouble() * w.path("N").asLong())
                / (r.path("N").asLong() + w.path("N").asLong());
        assertThat((double) cycleNs.get("avg")).isCloseTo(mean, within(1e-3));
        long readMedian = r.path("percentile").path("50.000000").asLong();
        long writeMedian = w.path("percentile").path("50.000000").asLong();
        assertThat((long) cycleNs.get("median")).as("between the directions' medians")
                .isBetween(Math.min(readMedian, writeMedian) * 63 / 64, Math.max(readMedian, writeMedian) * 65 / 64);
        Map<String, Object> writePercentiles = map(map(map(map(summary.get("fio")).get("write")).get("clat_ns"))
                .get("percentile"));
        assertThat(writePercentiles).as("fio's own figures per direction, keyed by percent (this capture: fio's "
                        + "default list of 17)").hasSize(17).containsEntry("50", writeMedian)
                .containsEntry("99", w.path("percentile").path("99.000000").asLong())
                .containsEntry("99.9", w.path("percentile").path("99.900000").asLong());
        assertThat(summary.get("bytes")).as("2 jobs × 8 MiB").isEqualTo(16L << 20);
    }

    @Test
    void aStreamCutInsideADumpKeepsTheCompleteDumpsIntervalsAndRefusesASummary() throws IOException {
        List<String> dumps = dumpTexts(fixture(RANDRW));
        String cut = String.join("", dumps.subList(0, 6)) + dumps.get(6).substring(0, dumps.get(6).length() / 2);
        JsonNode sixth = JSON.readTree(dumps.get(5));
        FioOutput out = read(cut);

        List<Interval> intervals = drained(out);
        assertThat(intervals).hasSize(6);
        assertThat(intervals.stream().mapToLong(Interval::cycles).sum()).as("what the 6th dump's bins hold")
                .isEqualTo(clatN(sixth));
        assertThat(intervals.stream().mapToLong(Interval::bytes).sum()).isEqualTo(sum(sixth, "io_bytes"));
        assertThatThrownBy(out::summary).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fio's output ended inside status dump 6")
                .hasMessageContaining("after 6 complete dumps: no final report");
    }

    @Test
    void noOutputAtAllIsAnError() {
        FioOutput out = read("fio: pid=0, err=2/file:filesetup.c:805, func=open(/nonexistent), error=No such file\n");

        assertThat(drained(out)).isEmpty();
        assertThatThrownBy(out::summary).isInstanceOf(IllegalStateException.class)
                .hasMessage("fio printed no JSON report; it printed: fio: pid=0, err=2/file:filesetup.c:805, "
                        + "func=open(/nonexistent), error=No such file");
    }

    @Test
    void skipsFiosNotesOnStdout() throws IOException {
        String note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n";
        FioOutput out = read(note + fixture(RANDREAD));

        assertThat(drained(out)).hasSize(5);
        assertThat(out.summary().get("cycles")).isEqualTo(2059L);
        assertThat(out.otherOutput()).containsExactly(note.strip());
    }

    @Test
    void aDumpWithoutNewIoClosesNoIntervalAndTheIndexesFollowTheDumps() throws IOException {
        List<String> dumps = dumpTexts(fixture(RANDREAD));
        FioOutput out = new FioOutput();
        out.add(dumps.get(0));
        out.add(dumps.get(0));
        out.add(dumps.get(1));

        List<Interval> intervals = drained(out);
        assertThat(intervals).extracting(Interval::index).containsExactly(0L, 2L);
        assertThat(out.intervalsClosed()).isEqualTo(2);
        assertThat(intervals.stream().mapToLong(Interval::cycles).sum())
                .isEqualTo(clatN(JSON.readTree(dumps.get(1))));
    }

    @Test
    void closesEachIntervalAsSoonAsItsDumpHasArrived() throws Exception {
        List<String> dumps = dumpTexts(fixture(RANDREAD));
        PipedOutputStream fio = new PipedOutputStream();
        PipedInputStream stdout = new PipedInputStream(fio, 1 << 20);
        FioOutput out = new FioOutput();
        Thread reader = new Thread(() -> out.read(stdout), "fio-output-test");
        reader.start();
        try {
            fio.write(dumps.get(0).getBytes(StandardCharsets.UTF_8));
            fio.flush();
            List<Interval> got = new ArrayList<>();
            for (int i = 0; i < 200 && got.isEmpty(); i++) {
                out.drainIntervals(got);
                Thread.sleep(10);
            }
            assertThat(got).as("the first interval while fio's output is still open").hasSize(1);
            assertThat(out.ended()).isFalse();
            assertThat(out.drainIntervals(got)).as("drained once").isZero();
        } finally {
            fio.close();
            reader.join(5000);
        }
        assertThat(out.ended()).isTrue();
    }

    /** An InputStream that hands out at most chunk bytes per read, as a pipe may. */
    private static InputStream inChunks(String text, int chunk) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk));
            }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 4096})
    void aDumpSplitAcrossReadsAtAnyByteGivesTheSameIntervals(int chunk) throws IOException {
        String text = "note: a line before the first dump\n" + fixture(RANDRW);
        List<Interval> whole = drained(read(text));
        FioOutput out = new FioOutput();
        out.read(inChunks(text, chunk));

        assertThat(drained(out)).usingRecursiveComparison().isEqualTo(whole);
        assertThat(whole).hasSize(9);
        assertThat(out.otherOutput()).containsExactly("note: a line before the first dump");
        assertThat(out.summary()).containsEntry("cycles", 1421L + 627L);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 65536})
    void bracesAndQuotesInsideStringsDoNotEndADump(int chunk) throws IOException {
        // a file name with a brace, an escaped quote and a backslash, as fio prints it in "job options"; read in
        // chunks that also cut between a backslash and the character it escapes
        String odd = fixture(RANDREAD).replace("\"filename\" : \"/dev/nvme0n1\"",
                "\"filename\" : \"/tmp/a}b\\\"{c\\\\\"");
        assertThat(odd).contains("a}b");
        FioOutput out = new FioOutput();
        out.read(inChunks(odd, chunk));

        assertThat(out.error()).isNull();
        assertThat(out.dumps()).isEqualTo(5);
        assertThat(drained(out).stream().mapToLong(Interval::cycles).sum()).isEqualTo(2059);
    }

    @Test
    void aDumpThatIsNotFiosJsonIsNamedAndRefusesASummary() throws IOException {
        List<String> dumps = dumpTexts(fixture(RANDREAD));
        String badBin = dumps.get(1).replaceFirst("\"(\\d+)\" : (\\d+)", "\"x$1\" : $2");
        assertThat(badBin).isNotEqualTo(dumps.get(1));
        FioOutput out = read(dumps.get(0) + badBin + "{ \"jobs\" : [ } ]\n" + dumps.get(2));

        assertThat(out.dumps()).isEqualTo(4);
        assertThat(drained(out)).as("the first dump's interval, and the third's").hasSize(2);
        assertThatThrownBy(out::summary).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("fio's status dump 1 is not the JSON fio prints: a clat bin that is not a number of ns at byte ");
    }

    @Test
    void theWarmUpReadsItsSampleThroughTheWholePath() {
        assertThat(FioOutput.warmUp()).as("three intervals whose I/Os are the summary's, from the generated sample")
                .isTrue();
        assertThat(FioOutput.warmUp()).as("once per JVM, then a no-op").isTrue();
    }
}
