package org.qplab.controller.live;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.qplab.protocol.Sample;
import org.qplab.protocol.SampleFrame;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Fans stored frames out to whoever watches a run. Only runs with a watcher cost anything: a frame
 * for an unwatched run is dropped here after one map lookup.
 */
@Component
public class LiveRuns {

    private record Watched(Sinks.Many<LiveEvent> sink, AtomicLong cycles) {}

    private final Map<Long, Watched> watched = new ConcurrentHashMap<>();

    /** Events of a running run from now on; completes after its End event. */
    public Flux<LiveEvent> watch(long runId) {
        Watched w = watched.computeIfAbsent(runId, id -> new Watched(
                Sinks.many().multicast().directBestEffort(), new AtomicLong()));
        return w.sink().asFlux();
    }

    /** Called after a frame is stored (not for replays). */
    public void stored(SampleFrame frame) {
        Watched w = watched.get(frame.runId());
        if (w != null) {
            List<LiveEvent.ThreadProgress> threads = perThread(frame);
            synchronized (w) { // frames of one run are stored by several writers: totals go out in order
                long total = w.cycles().addAndGet(frame.count());
                w.sink().tryEmitNext(new LiveEvent.Progress(frame.runId(), frame.seq(), total, threads));
            }
        }
    }

    /** Called once the run's end is stored. */
    public void ended(long runId, String status) {
        Watched w = watched.remove(runId);
        if (w != null) {
            emit(w, new LiveEvent.End(runId, status));
            w.sink().tryEmitComplete();
        }
    }

    private static void emit(Watched w, LiveEvent event) {
        synchronized (w) { // several frames of one run may be stored concurrently
            w.sink().tryEmitNext(event);
        }
    }

    static List<LiveEvent.ThreadProgress> perThread(SampleFrame frame) {
        ByteBuffer r = frame.records();
        Map<Integer, List<Long>> durations = new TreeMap<>();
        Map<Integer, long[]> sums = new TreeMap<>(); // bytes, first start, last end
        for (int i = 0, at = 0; i < frame.count(); i++, at += Sample.BYTES) {
            int thread = r.getInt(at);
            long start = r.getLong(at + 16);
            long end = r.getLong(at + 24);
            durations.computeIfAbsent(thread, t -> new ArrayList<>()).add(end - start);
            long[] s = sums.computeIfAbsent(thread, t -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE});
            s[0] += r.getLong(at + 32);
            s[1] = Math.min(s[1], start);
            s[2] = Math.max(s[2], end);
        }
        List<LiveEvent.ThreadProgress> threads = new ArrayList<>();
        sums.forEach((thread, s) -> {
            long[] d = durations.get(thread).stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(d);
            threads.add(new LiveEvent.ThreadProgress(thread, d.length, s[0], s[1], s[2], d[d.length / 2]));
        });
        return threads;
    }
}
