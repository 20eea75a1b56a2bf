package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

class OutboxTests {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    /** Two intervals of 100 buckets each (every test frame has the same size). */
    private static final long FRAME_BYTES = frame(7, 0).encodedBytes();

    @TempDir
    Path spool;

    @Test
    void keepsFramesInMemoryUpToTheLimitThenOnDiskAndDeliversThemInOrderWithTheRunEndLast() throws IOException {
        Outbox outbox = new Outbox(spool, 2 * FRAME_BYTES, JSON);
        for (int seq = 0; seq < 5; seq++) {
            outbox.put("inst-a", frame(7, seq));
        }
        outbox.putEnd("inst-a", 7, new AgentMessage.RunFinished(7, Map.of("cycles", 500), 5));

        assertThat(outbox.memoryBytes()).as("two frames fit in memory").isEqualTo(2 * FRAME_BYTES);
        assertThat(outbox.spilled()).as("three went to disk").isEqualTo(3);
        assertThat(files("inst-a")).containsExactlyInAnyOrder("r7-s2.qpbs", "r7-s3.qpbs", "r7-s4.qpbs", "r7-end.json");

        List<Object> delivered = drainInOrder(outbox);
        assertThat(delivered).hasSize(6);
        for (int seq = 0; seq < 5; seq++) {
            IntervalFrame f = (IntervalFrame) delivered.get(seq);
            assertThat(f.seq()).isEqualTo(seq);
            assertThat(f.intervals()).as("frame %d read back from %s", seq, seq < 2 ? "memory" : "disk")
                    .isEqualTo(frame(7, seq).intervals());
        }
        assertThat(delivered.get(5)).isEqualTo(new AgentMessage.RunFinished(7, Map.of("cycles", 500), 5));
    }

    @Test
    void whatAStoppingAgentHoldsInMemoryGoesToTheSpoolAndANewProcessLoadsItAll() throws IOException {
        Outbox outbox = new Outbox(spool, 1 << 20, JSON);
        outbox.put("inst-a", frame(7, 0));
        outbox.put("inst-a", frame(7, 1));
        outbox.putEnd("inst-a", 7, new AgentMessage.RunFinished(7, Map.of("cycles", 500), 2));
        assertThat(files("inst-a")).as("only the run end is on disk yet").containsExactly("r7-end.json");

        assertThat(outbox.persist()).isEqualTo(3);
        assertThat(outbox.memoryBytes()).isZero();
        assertThat(files("inst-a")).containsExactlyInAnyOrder("r7-s0.qpbs", "r7-s1.qpbs", "r7-end.json");

        Outbox next = new Outbox(spool, 1 << 20, JSON);
        assertThat(next.load()).isEqualTo(3);
        List<Object> delivered = drainInOrder(next);
        assertThat(((IntervalFrame) delivered.get(1)).intervals()).isEqualTo(frame(7, 1).intervals());
        assertThat(delivered.get(2)).isEqualTo(new AgentMessage.RunFinished(7, Map.of("cycles", 500), 2));
    }

    @Test
    void aRunThatEndsLaterIsDeliveredLaterWhateverItsId() {
        Outbox outbox = new Outbox(spool, 1 << 20, JSON);
        outbox.put("inst", frame(2, 0));
        outbox.putEnd("inst", 2, new AgentMessage.RunFinished(2, Map.of(), 1));
        Long sent = outbox.first();
        sent = outbox.after(sent); // run 2's frame and end went out
        outbox.put("inst", frame(1, 0)); // run 1 ran after run 2 on this agent
        outbox.putEnd("inst", 1, new AgentMessage.RunFinished(1, Map.of(), 1));

        assertThat(outbox.load(outbox.after(sent))).isInstanceOf(IntervalFrame.class)
                .extracting(f -> ((IntervalFrame) f).runId()).isEqualTo(1L);
        assertThat(outbox.load(outbox.after(outbox.after(sent)))).isEqualTo(new AgentMessage.RunFinished(1, Map.of(), 1));
    }

    @Test
    void forgetsWhatTheControllerAcknowledgedFilesIncluded() throws IOException {
        Outbox outbox = new Outbox(spool, 0, JSON);
        outbox.put("inst-a", frame(3, 0));
        outbox.put("inst-a", frame(3, 1));
        outbox.putEnd("inst-a", 3, new AgentMessage.RunFailed(3, "peer vanished", 2, true));

        outbox.ack(new Outbox.Key(3, 0));
        outbox.ack(new Outbox.Key(3, 0)); // a duplicate ack changes nothing
        assertThat(files("inst-a")).containsExactlyInAnyOrder("r3-s1.qpbs", "r3-end.json");
        outbox.ack(new Outbox.Key(3, 1));
        outbox.ack(new Outbox.Key(3, Outbox.RUN_END));

        assertThat(outbox.isEmpty()).isTrue();
        assertThat(outbox.diskBytes()).isZero();
        assertThat(files("inst-a")).isEmpty();
    }

    @Test
    void aNewAgentProcessLoadsWhatTheKilledOneLeftInTheSpool() throws IOException {
        Outbox before = new Outbox(spool, 0, JSON);
        before.put("inst-a", frame(9, 0));
        before.put("inst-a", frame(9, 1));
        before.putEnd("inst-a", 9, new AgentMessage.RunFinished(9, Map.of("cycles", 200), 2));
        Files.writeString(spool.resolve("inst-a").resolve("r9-s2.qpbs.tmp"), "half-written by a killed process");

        Outbox after = new Outbox(spool, 0, JSON);
        assertThat(after.load()).isEqualTo(3);

        assertThat(after.runs()).containsExactly(9L);
        List<Object> delivered = drainInOrder(after);
        assertThat(delivered).extracting(o -> o instanceof IntervalFrame f ? "frame " + f.seq() : o.getClass().getSimpleName())
                .containsExactly("frame 0", "frame 1", "RunFinished");
        assertThat(((IntervalFrame) delivered.get(1)).intervals()).isEqualTo(frame(9, 1).intervals());
        assertThat(files("inst-a")).as("the half-written file is gone").doesNotContain("r9-s2.qpbs.tmp");
    }

    @Test
    void aFrameAnEarlierReleaseSpooledIsKeptAsideNotReplayed() throws IOException {
        Outbox before = new Outbox(spool, 0, JSON);
        before.put("inst-a", frame(9, 0));
        byte[] v1 = java.nio.ByteBuffer.allocate(32 + 48).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(IntervalFrame.MAGIC).putShort((short) 1).array(); // an agent before interval statistics
        Files.write(spool.resolve("inst-a").resolve("r9-s1.qpbs"), v1);

        Outbox after = new Outbox(spool, 0, JSON);
        assertThat(after.load()).isEqualTo(1);

        assertThat(drainInOrder(after)).extracting(o -> ((IntervalFrame) o).seq()).containsExactly(0L);
        assertThat(files(spool.resolve("undeliverable").resolve("inst-a"))).containsExactly("r9-s1.qpbs");
    }

    @Test
    void aLayoutV2FrameThePreviousReleaseSpooledIsReplayed() throws IOException {
        Outbox before = new Outbox(spool, 0, JSON);
        before.put("inst-a", frame(9, 0));
        java.nio.ByteBuffer v2 = frame(9, 1).encode(2); // the controller still reads it
        byte[] bytes = new byte[v2.remaining()];
        v2.get(bytes);
        Files.write(spool.resolve("inst-a").resolve("r9-s1.qpbs"), bytes);

        Outbox after = new Outbox(spool, 0, JSON);
        assertThat(after.load()).isEqualTo(2);

        List<Object> delivered = drainInOrder(after);
        assertThat(delivered).extracting(o -> ((IntervalFrame) o).seq()).containsExactly(0L, 1L);
        assertThat(((IntervalFrame) delivered.get(1)).intervals()).isEqualTo(frame(9, 1).intervals());
    }

    @Test
    void neverReplaysAnotherInstallationsRunsButKeepsThemAside() throws IOException {
        Outbox outbox = new Outbox(spool, FRAME_BYTES, JSON);
        outbox.put("old-db", frame(1, 0)); // memory
        outbox.put("old-db", frame(1, 1)); // disk
        outbox.put("new-db", frame(2, 0)); // disk

        assertThat(outbox.keepOnly("new-db")).isEqualTo(2);

        assertThat(outbox.runs()).containsExactly(2L);
        assertThat(files(spool.resolve("undeliverable").resolve("old-db")))
                .as("both frames, the one from memory too").containsExactlyInAnyOrder("r1-s0.qpbs", "r1-s1.qpbs");
        assertThat(files("old-db")).isEmpty();
        assertThat(outbox.memoryBytes()).isZero();
        assertThat(new Outbox(spool, 0, JSON).load()).as("a restart does not bring them back").isEqualTo(1);
    }

    @Test
    void withoutAUsableDiskEverythingStaysInMemory() throws IOException {
        Path notADirectory = Files.writeString(spool.resolve("file"), "x");
        Outbox outbox = new Outbox(notADirectory, 0, JSON);
        outbox.put("inst", frame(4, 0));
        outbox.putEnd("inst", 4, new AgentMessage.RunFinished(4, Map.of(), 1));
        assertThat(outbox.size()).isEqualTo(2);
        assertThat(outbox.memoryBytes()).isEqualTo(FRAME_BYTES);
        assertThat(((IntervalFrame) outbox.load(outbox.first())).intervals()).isEqualTo(frame(4, 0).intervals());
    }

    private static List<Object> drainInOrder(Outbox outbox) {
        List<Object> out = new ArrayList<>();
        for (Long at = outbox.first(); at != null; at = outbox.after(at)) {
            out.add(outbox.load(at));
        }
        return out;
    }

    private static IntervalFrame frame(long runId, long seq) {
        List<Interval> intervals = new ArrayList<>();
        for (int thread = 0; thread < 2; thread++) {
            int[] buckets = new int[100];
            long[] counts = new long[100];
            for (int b = 0; b < 100; b++) {
                buckets[b] = 1000 + b;
                counts[b] = 1 + b % 3;
            }
            long cycles = java.util.Arrays.stream(counts).sum();
            intervals.add(new Interval(thread, seq, 1, cycles, cycles, cycles * 4096, 0, 700, 900, 1_000_000 + seq,
                    1_000_999 + seq, buckets, counts)); // fields of the same encoded size for every seq below 128
        }
        return new IntervalFrame(runId, seq, intervals);
    }

    private List<String> files(String installation) throws IOException {
        return files(spool.resolve(installation));
    }

    private static List<String> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
        }
    }
}
