package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/**
 * Agents killed with SIGKILL in the middle of a run: the run is FAILED with the reason once the agent has
 * been gone for lost-after, the cycles that reached the controller are kept (the run is partial), what the
 * killed agent left in its spool is replayed when it is back and none of it is stored twice, the hosts are
 * free again, and the point of the matrix is tried again. Checked in PostgreSQL and through the API, as a lab
 * engineer would look.
 */
@TestPropertySource(properties = {"qplab.agents.lost-after=3s", "qplab.schedule.max-attempts=2"})
class AgentFaultIntegrationTests extends ControllerIntegrationTest {

    @org.springframework.beans.factory.annotation.Autowired
    private org.qplab.controller.analysis.RunHistograms histograms;

    private final List<AgentProcess> agents = new ArrayList<>();
    @Autowired
    private DataSource dataSource;
    @Autowired
    private MeterRegistry meters;

    @AfterEach
    void stopAgents() throws InterruptedException {
        for (AgentProcess agent : agents) {
            agent.close();
        }
    }

    @Test
    void aKilledAgentsRunFailsKeepsEveryCycleItsSpoolReplaysOnceAndIsTriedAgainWhenTheHostIsBack() throws Exception {
        // every frame waits in the spool on disk until the controller acknowledges it
        AgentProcess victim = agent("victim", List.of("--spool-memory-mb", "0"));
        long experiment = submit("""
                name: killed mid-run
                hosts: {loopback: [victim]}
                base: {provider: tcp, duration_ms: 4000, msg_size: 4K}
                """);
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        await("intervals of run " + run + " are stored", Duration.ofSeconds(60), () -> stored(run) > 0);

        // PostgreSQL stalls (no frame can be claimed): the frames the agent sends from now on stay unacknowledged in
        // its spool, and the controller stores those it has read from the link once PostgreSQL is back, even after
        // the agent is dead. Its restarted successor sends them again: they arrive twice.
        Map<Long, IntervalFrame> spooled;
        try (Connection stall = dataSource.getConnection()) {
            stall.setAutoCommit(false);
            stall.createStatement().execute("LOCK TABLE run_frame IN SHARE MODE");
            await("the agent's spool holds 8 frames of run " + run, Duration.ofSeconds(30),
                    () -> spooledFrames("victim", run).size() >= 8);
            victim.kill();
            spooled = spooledFrames("victim", run);
            stall.rollback();
        }
        try (var left = Files.list(AgentProcess.tmpOf("victim"))) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("qplab-engine-")))
                    .as("the engine library it copied out of its jar (removed once loaded, not at exit)").isEmpty();
        }

        await("run " + run + " is failed", Duration.ofSeconds(30), () -> "FAILED".equals(status(run)));
        Map<String, Object> failed = runJson(run);
        assertThat(failed.get("error")).isEqualTo("agent victim disconnected during the run and did not come back within 3 s "
                + "(qplab.agents.lost-after)");
        assertThat(failed).containsEntry("partial", true);
        Map<Long, Long> arrived = storedFrames(run); // what reached PostgreSQL before the agent came back
        Stored beforeReplay = storedOf(run);
        assertThat(cyclesStored(failed)).as("what the API says is kept").isEqualTo(beforeReplay.intervals()).isPositive()
                .isEqualTo(beforeReplay.frames()).isEqualTo(beforeReplay.histogram());
        List<Long> twice = spooled.keySet().stream().filter(arrived::containsKey).toList();
        assertThat(twice).as("spooled frames that were stored nonetheless: they will arrive twice").isNotEmpty();
        long retry = ((Number) failed.get("supersededBy")).longValue();
        assertThat(status(retry)).as("the point is queued again").isEqualTo("QUEUED");

        double replayedBefore = replayedFrames();
        agents.add(victim.restart());
        Map<String, Object> ended = awaitExperimentEnd(experiment, Duration.ofSeconds(90), this::logs);

        assertThat(ended).containsEntry("status", "FINISHED").containsEntry("runsTotal", 1).containsEntry("runsDone", 1)
                .containsEntry("runsFailed", 0).containsEntry("runsRetried", 1);
        assertThat(victim.log()).contains("replaying " + spooled.size() + " unacknowledged");
        assertThat(replayedFrames() - replayedBefore).as("frames the ingest recognised as stored before and skipped")
                .isEqualTo(twice.size());

        // the failed try: every frame the killed agent made is stored once (no frame was only in its memory)
        Map<Long, Long> keptFrames = storedFrames(run);
        Set<Long> union = new TreeSet<>(arrived.keySet());
        union.addAll(spooled.keySet());
        assertThat(keptFrames.keySet()).as("the frames that had arrived and the spooled ones, nothing else")
                .containsExactlyInAnyOrderElementsOf(union);
        assertThat(keptFrames.keySet()).as("frames 0..n-1, none missing").containsExactlyInAnyOrderElementsOf(
                LongStream.range(0, keptFrames.size()).boxed().toList());
        spooled.forEach((seq, frame) -> {
            assertThat(keptFrames.get(seq)).as("frame %d: the cycles it carried, stored once", seq).isEqualTo(frame.cycles());
            for (Interval i : frame.intervals()) {
                assertThat(jdbc.sql("SELECT cycles FROM run_interval WHERE run_id = ? AND thread = ? AND idx = ?")
                        .params(run, i.thread(), i.index()).query(Long.class).single())
                        .as("interval %d of thread %d", i.index(), i.thread()).isEqualTo(i.cycles());
            }
        });
        long newlyReplayed = spooled.entrySet().stream().filter(e -> !arrived.containsKey(e.getKey()))
                .mapToLong(e -> e.getValue().cycles()).sum();
        Stored first = storedOf(run);
        assertThat(first.intervals()).as("the cycles kept before the replay plus those only the spool had")
                .isEqualTo(arrived.values().stream().mapToLong(Long::longValue).sum() + newlyReplayed)
                .isEqualTo(first.frames()).isEqualTo(first.histogram()).isEqualTo(cyclesStored(runJson(run)));

        // the second try: every cycle of its summary, once
        Map<String, Object> second = runJson(retry);
        assertThat(second).containsEntry("status", "FINISHED").containsEntry("agentId", "victim")
                .containsEntry("attempt", 2).containsEntry("retryOf", (int) run).containsEntry("partial", false)
                .containsEntry("traceStored", 0);
        long cycles = ((Number) ((Map<?, ?>) second.get("summary")).get("cycles")).longValue();
        Stored again = storedOf(retry);
        assertThat(again.intervals()).as("every cycle of the second try stored once").isEqualTo(cycles).isPositive()
                .isEqualTo(again.frames()).isEqualTo(again.histogram()).isEqualTo(cyclesStored(second));
        assertThat(storedOf(run)).as("the first try's intervals are still there").isEqualTo(first);
    }

    @Test
    void aPairRunWhoseServerIsKilledFailsAndFreesTheClientsHostAtOnce() throws Exception {
        AgentProcess client = agent("pair-client");
        AgentProcess server = agent("pair-server");
        long experiment = submit("""
                name: server killed
                hosts: {pairs: [[pair-client, pair-server]]}
                base: {provider: tcp, duration_ms: 4000, msg_size: 4K}
                """);
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();
        await("intervals of run " + run + " are stored", Duration.ofSeconds(60), () -> stored(run) > 0);

        server.kill();

        await("run " + run + " is failed", Duration.ofSeconds(30), () -> "FAILED".equals(status(run)));
        assertThat((String) runJson(run).get("error")).as("the reason names the side and what it saw")
                .containsAnyOf("pair-server disconnected during the run", "client pair-client:");
        Stored kept = storedOf(run);
        assertThat(kept.intervals()).as("the cycles its stored frames carried, each once").isEqualTo(kept.frames())
                .isEqualTo(kept.histogram()).isPositive();
        // the client's host is free: a loopback run there goes through while the server is still gone
        long other = submit("""
                name: on the surviving host
                hosts: {loopback: [pair-client]}
                base: {provider: tcp, iterations: 200, msg_size: 4K}
                """);
        assertThat(awaitExperimentEnd(other, Duration.ofSeconds(60), this::logs)).containsEntry("status", "FINISHED");
        long retry = ((Number) runJson(run).get("supersededBy")).longValue();
        assertThat(status(retry)).as("the pair's second try waits for its server to come back").isEqualTo("QUEUED");
        assertThat(client.process().isAlive()).isTrue();
        // the client sent the pair run's frames before the later run's end, so they are all stored by now
        Stored all = storedOf(run);
        assertThat(all.intervals()).as("the cycles its stored frames carried, each once").isEqualTo(all.frames())
                .isEqualTo(all.histogram()).isEqualTo(cyclesStored(runJson(run))).isGreaterThanOrEqualTo(kept.intervals());
        http().post().uri("/api/experiments/{id}/cancel", experiment).exchange().expectStatus().isOk();
    }

    private AgentProcess agent(String id) throws Exception {
        return agent(id, List.of());
    }

    private AgentProcess agent(String id, List<String> flags) throws Exception {
        AgentProcess agent = AgentProcess.start("ws://127.0.0.1:" + port + "/agent", id, TOKEN, flags);
        agents.add(agent);
        await("agent " + id + " registers", Duration.ofSeconds(60),
                () -> jdbc.sql("SELECT count(*) FROM agent WHERE id = ? AND connected").param(id).query(Long.class).single() == 1);
        return agent;
    }

    private long submit(String yaml) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return ((Number) created.get("id")).longValue();
    }

    private Map<String, Object> runJson(long run) {
        return http().get().uri("/api/runs/{id}", run).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }

    private String status(long run) {
        return jdbc.sql("SELECT status FROM run WHERE id = ?").param(run).query(String.class).single();
    }

    /** The cycles the run's stored intervals count. */
    private long stored(long run) {
        return jdbc.sql("SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = ?").param(run)
                .query(Long.class).single();
    }

    /**
     * The cycles stored of a run, read in one statement (one snapshot while frames may still arrive): those its
     * intervals count, those its claimed frames carried (run_frame, the replay guard) and those in its histogram
     * (run_histogram, the sum of its intervals, made current first as a reader of it would).
     */
    private record Stored(long intervals, long frames, long histogram) {}

    private Stored storedOf(long run) {
        histograms.current(List.of(run));
        return jdbc.sql("""
                        SELECT (SELECT coalesce(sum(cycles), 0) FROM run_interval WHERE run_id = :run),
                               (SELECT coalesce(sum(cycles), 0) FROM run_frame WHERE run_id = :run),
                               coalesce((SELECT cycles FROM run_histogram WHERE run_id = :run), 0)""")
                .param("run", run).query((rs, i) -> new Stored(rs.getLong(1), rs.getLong(2), rs.getLong(3))).single();
    }

    /** The run's stored frames: seq -> the cycles its intervals count. */
    private Map<Long, Long> storedFrames(long run) {
        Map<Long, Long> frames = new TreeMap<>();
        jdbc.sql("SELECT seq, cycles FROM run_frame WHERE run_id = ?").param(run)
                .query((rs, i) -> frames.put(rs.getLong(1), rs.getLong(2))).list();
        return frames;
    }

    private double replayedFrames() {
        return meters.get("qplab.ingest.replayed.frames").counter().count();
    }

    private static long cyclesStored(Map<String, Object> run) {
        return ((Number) run.get("cyclesStored")).longValue();
    }

    /** The run's frames in the agent's spool (DIR/INSTALLATION/r<run>-s<seq>.qpbs): seq -> frame. */
    private static Map<Long, IntervalFrame> spooledFrames(String agent, long run) throws IOException {
        Map<Long, IntervalFrame> frames = new TreeMap<>();
        Path spool = AgentProcess.spoolOf(agent);
        if (!Files.isDirectory(spool)) {
            return frames;
        }
        try (Stream<Path> files = Files.walk(spool)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("r" + run + "-s\\d+\\.qpbs")).toList()) {
                try {
                    IntervalFrame frame = IntervalFrame.decode(ByteBuffer.wrap(Files.readAllBytes(file)));
                    frames.put(frame.seq(), frame);
                } catch (NoSuchFileException acknowledged) {
                    // deleted since it was listed
                }
            }
        }
        return frames;
    }

    private void await(String what, Duration timeout, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        Await.until(what, timeout, condition, this::logs);
    }

    private String logs() {
        StringBuilder all = new StringBuilder();
        agents.forEach(a -> all.append(a.log()).append("\n----\n"));
        return all.toString();
    }
}
