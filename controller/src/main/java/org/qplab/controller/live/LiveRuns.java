package org.qplab.controller.live;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
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
    private final Sinks.Many<Long> statusChanges = Sinks.many().multicast().directBestEffort();

    /** Events of a running run from now on; completes after its End event. */
    public Flux<LiveEvent> watch(long runId) {
        Watched w = watched.computeIfAbsent(runId, id -> new Watched(
                Sinks.many().multicast().directBestEffort(), new AtomicLong()));
        return w.sink().asFlux();
    }

    /** Called after a frame is stored (not for replays). */
    public void stored(IntervalFrame frame) {
        Watched w = watched.get(frame.runId());
        if (w != null) {
            List<LiveEvent.ThreadProgress> threads = perThread(frame);
            synchronized (w) { // frames of one run are stored by several writers: totals go out in order
                long total = w.cycles().addAndGet(frame.cycles());
                w.sink().tryEmitNext(new LiveEvent.Progress(frame.runId(), frame.seq(), total, threads));
            }
        }
    }

    /** The ids of runs that start or end on this controller, from now on (a watched experiment reads itself again). */
    public Flux<Long> statusChanges() {
        return statusChanges.asFlux();
    }

    /** Called once the run is marked RUNNING on its agent: its watchers get a "status" event (agent, start time). */
    public void started(long runId) {
        changed(runId);
        Watched w = watched.get(runId);
        if (w != null) {
            emit(w, new LiveEvent.Watching(runId, "RUNNING"));
        }
    }

    /** Called once the run's end is stored. */
    public void ended(long runId, String status) {
        changed(runId);
        Watched w = watched.remove(runId);
        if (w != null) {
            emit(w, new LiveEvent.End(runId, status));
            w.sink().tryEmitComplete();
        }
    }

    private void changed(long runId) {
        synchronized (statusChanges) { // a sink takes one emitter at a time; runs start and end on several threads
            statusChanges.tryEmitNext(runId);
        }
    }

    private static void emit(Watched w, LiveEvent event) {
        synchronized (w) { // several frames of one run may be stored concurrently
            w.sink().tryEmitNext(event);
        }
    }

    /** One entry per interval of the frame, in (thread, interval) order. */
    static List<LiveEvent.ThreadProgress> perThread(IntervalFrame frame) {
        return frame.intervals().stream()
                .sorted(Comparator.comparingInt(Interval::thread).thenComparingLong(Interval::index))
                .map(i -> new LiveEvent.ThreadProgress(i.thread(), i.index(), i.cycles(), i.bytes(), i.firstStartNs(),
                        i.lastEndNs(), i.percentileNs(0.5), i.percentileNs(0.99), i.percentileNs(0.999)))
                .toList();
    }
}
