package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.qplab.protocol.RunSummaryValidator.assertValid;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.qplab.engine.nvmeof.NvmeofSpec;
import org.qplab.protocol.Interval;
import tools.jackson.databind.json.JsonMapper;

/**
 * FioRun on the real fio (the host's, from PATH) against a small file under target/: no NVMe-oF, no root. And a
 * whole local nvmeof session (transport local, backing file) over it, whose summary follows run-summary.schema.json.
 */
class FioRunIntegrationTests {

    private static final Optional<Path> FIO = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            .map(dir -> Path.of(dir, "fio")).filter(Files::isExecutable).findFirst();

    private Path dir;
    private Path file;

    @BeforeEach
    void createTheFile() throws IOException {
        Assumptions.assumeTrue(FIO.isPresent(), "fio is not installed (apt-get install fio): FioRun runs it");
        Files.createDirectories(Path.of("target"));
        dir = Files.createTempDirectory(Path.of("target"), "fio-run-");
        file = dir.resolve("data.img");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(16L << 20);
        }
    }

    @AfterEach
    void removeTheFile() throws IOException {
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static List<String> argv(String filename, Object... keyValues) {
        Map<String, Object> spec = new HashMap<>();
        spec.put("provider", "nvmeof");
        spec.put("direct", false);
        spec.put("interval_ms", 200L);
        for (int i = 0; i < keyValues.length; i += 2) {
            spec.put((String) keyValues[i], keyValues[i + 1]);
        }
        List<String> argv = new ArrayList<>();
        argv.add(FIO.orElseThrow().toString());
        argv.addAll(NvmeofSpec.of(spec).fioArguments(filename, "qplab-test-run-1"));
        return argv;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @Test
    void streamsIntervalsWhileFioRunsAndTheyAddUpToItsSummary() {
        List<Interval> intervals = new ArrayList<>();
        int beforeTheEnd = 0;
        long started = System.nanoTime();
        try (FioRun fio = FioRun.start(argv(file.toString(), "runtime_ms", 2000L, "iodepth", 4L))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!fio.awaitEnd(Duration.ofMillis(50)) && System.nanoTime() < deadline) {
                fio.drainIntervals(intervals);
                beforeTheEnd = intervals.size();
            }
            assertThat(fio.awaitEnd(Duration.ZERO)).as("fio ended within 30 s").isTrue();
            long lived = System.nanoTime() - started;
            fio.drainIntervals(intervals);
            Map<String, Object> summary = fio.summary();

            assertThat(beforeTheEnd).as("intervals drained while fio was running").isGreaterThanOrEqualTo(3);
            assertThat(intervals.size()).as("2 s at one dump per 200 ms, and the final report")
                    .isBetween(6, 13);
            assertThat(intervals.stream().mapToLong(Interval::cycles).sum()).as("Σ interval cycles")
                    .isEqualTo(summary.get("cycles")).isPositive();
            assertThat(intervals.stream().mapToLong(Interval::bytes).sum()).isEqualTo(summary.get("bytes"))
                    .isEqualTo((long) summary.get("cycles") * 4096);
            double bw = (double) summary.get("bw_avg_bps");
            assertThat((double) summary.get("iops") * 4096).as("IOPS × bs vs BW").isCloseTo(bw, within(bw * 0.01));
            // about the runtime asked for, and never longer than the fio process lived (however loaded the machine)
            assertThat((long) summary.get("duration_ns")).as("fio's runtime, ns").isBetween(1_900_000_000L, lived);
            assertThat(summary.get("stopped")).isEqualTo(false);
            assertThat(map(summary.get("fio"))).containsEntry("rw", "randread").containsEntry("bs", 4096L)
                    .containsEntry("iodepth", 4L).containsEntry("ioengine", "io_uring");
            assertThat((String) map(summary.get("fio")).get("version")).startsWith("fio-");
            long p99 = (long) map(summary.get("cycle_ns")).get("p99");
            assertThat(p99).as("p99 within [min, max] ns").isBetween((long) map(summary.get("cycle_ns")).get("min"),
                    (long) map(summary.get("cycle_ns")).get("max"));
        }
    }

    @Test
    void stoppingFioMidRunStillGivesItsFinalReport() {
        List<Interval> intervals = new ArrayList<>();
        try (FioRun fio = FioRun.start(argv(file.toString(), "runtime_ms", 60_000L))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (fio.drainIntervals(intervals) == 0 && System.nanoTime() < deadline) {
                assertThat(fio.awaitEnd(Duration.ofMillis(50))).as("fio still running").isFalse();
            }
            assertThat(intervals).as("a first interval within 20 s").isNotEmpty();
            long stopAt = System.nanoTime();
            fio.stop();
            assertThat(fio.awaitEnd(Duration.ofSeconds(10))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - stopAt)).as("SIGTERM ends fio at once")
                    .isLessThan(FioRun.STOP_GRACE);
            fio.drainIntervals(intervals);
            Map<String, Object> summary = fio.summary();

            assertThat(summary.get("stopped")).isEqualTo(true);
            assertThat(intervals.stream().mapToLong(Interval::cycles).sum()).isEqualTo(summary.get("cycles"));
            assertThat((long) summary.get("duration_ns")).as("stopped long before its 60 s")
                    .isLessThan(20_000_000_000L);
        }
    }

    /**
     * NvmeofSession's whole summary (fio's figures, the host's cpu and Tcp counters, the session's keys) of a local
     * run on the file, of a stopped one, and of one whose fio fails (error, no figures), against the schema. The
     * host is this one but for its configfs, sysfs, dev and lock roots, empty directories under target/, and a
     * /proc/self/status of uid 0 (a local run on a file needs no privilege; the check asks for it all the same).
     */
    @Test
    void aLocalNvmeofSessionsSummaryFollowsTheRunSummarySchema() throws IOException {
        Map<String, Object> ran = localSession(file.toAbsolutePath().toString(), false);
        assertThat(ran).containsEntry("side", "local").containsEntry("stopped", false).doesNotContainKey("error");
        assertThat(((Number) ran.get("cycles")).longValue()).isPositive();

        assertThat(localSession(file.toAbsolutePath().toString(), true)).containsEntry("stopped", true);

        Files.createDirectories(dir.resolve("a-dir"));
        Map<String, Object> failed = localSession(dir.resolve("a-dir").toAbsolutePath().toString(), false);
        assertThat((String) failed.get("error")).startsWith("fio on " + dir.resolve("a-dir").toAbsolutePath() + ": fio (pid ");
        assertThat(failed).containsEntry("cycles", 0).doesNotContainKey("fio");
    }

    private Map<String, Object> localSession(String backingPath, boolean stop) throws IOException {
        Path root = Files.createTempDirectory(dir, "host-");
        Path proc = Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(proc.resolve("status"), "Name:\tjava\nUid:\t0\t0\t0\t0\n");
        Files.createSymbolicLink(root.resolve("proc/stat"), Path.of("/proc/stat"));
        Files.createSymbolicLink(root.resolve("proc/net"), Path.of("/proc/net"));
        NvmeofHost host = new NvmeofHost("schema-test", List.of(backingPath), () -> "127.0.0.1",
                Files.createDirectories(root.resolve("config")), Files.createDirectories(root.resolve("sys")),
                root.resolve("proc"), Files.createDirectories(root.resolve("dev")), root.resolve("run/lock"));
        Map<String, Object> spec = new HashMap<>(Map.of("provider", "nvmeof", "transport", "local", "backing", "file",
                "backing_path", backingPath, "runtime_ms", stop ? 60_000L : 1000L, "interval_ms", 200L, "direct", false));
        String summary;
        try (NvmeofSession session = NvmeofSession.create(1, spec, host)) {
            session.start();
            List<Interval> intervals = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            boolean ended = false;
            while (!ended && System.nanoTime() < deadline) {
                ended = session.awaitEnd(Duration.ofMillis(50));
                session.drainIntervals(intervals);
                if (stop && !intervals.isEmpty()) {
                    session.stop();
                }
            }
            assertThat(ended).as("the local run ended within 30 s").isTrue();
            summary = session.summaryJson();
        }
        assertValid(summary);
        return map(JsonMapper.builder().build().readValue(summary, Map.class));
    }

    @Test
    void aFioThatFailsGivesItsExitCodeAndMessage() throws IOException {
        try (FioRun fio = FioRun.start(argv(file + "/not-a-dir", "runtime_ms", 1000L))) {
            assertThat(fio.awaitEnd(Duration.ofSeconds(30))).isTrue();

            assertThatThrownBy(fio::summary).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("fio (pid " + fio.pid() + ") exited with code 1")
                    .hasMessageContaining("Not a directory");
        }
    }

    @Test
    void aFioThatCannotStartIsNamed() {
        assertThatThrownBy(() -> FioRun.start(List.of(dir.resolve("no-fio").toString(), "--version")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot start fio (" + dir.resolve("no-fio") + "): ");
    }

    @Test
    void closeKillsARunningFioAndItsJobProcesses() {
        FioRun fio = FioRun.start(argv(file.toString(), "runtime_ms", 60_000L, "numjobs", 2L));
        List<Interval> intervals = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (fio.drainIntervals(intervals) == 0 && System.nanoTime() < deadline) {
            fio.awaitEnd(Duration.ofMillis(50));
        }
        List<ProcessHandle> processes = new ArrayList<>(ProcessHandle.of(fio.pid()).orElseThrow().descendants().toList());
        processes.add(ProcessHandle.of(fio.pid()).orElseThrow());
        assertThat(processes).as("fio and its 2 job processes").hasSizeGreaterThanOrEqualTo(3);
        fio.close();

        for (ProcessHandle p : processes) {
            p.onExit().orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join();
            assertThat(p.isAlive()).as("pid " + p.pid()).isFalse();
        }
        assertThat(fio.awaitEnd(Duration.ofSeconds(5))).as("its output read to the end").isTrue();
        assertThatThrownBy(fio::summary).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code 137");
    }
}
