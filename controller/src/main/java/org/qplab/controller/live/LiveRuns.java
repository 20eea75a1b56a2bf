package org.qplab.controller.live;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.protocol.Interval;
import org.qplab.protocol.IntervalFrame;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Fans the frames this controller stores, and the starts and ends it sets, out to whoever watches a run here. Only
 * runs with a watcher cost anything: a frame for an unwatched run is dropped here after one map lookup. What another
 * controller stores or sets (several controllers on one database, each with its own agents) does not pass here: a
 * watch reads that from the database ({@link LiveController}).
 */
@Component
public class LiveRuns {

    private final Map<Long, Sinks.Many<RunSignal>> watched = new ConcurrentHashMap<>();
    private final Sinks.Many<Long> statusChanges = Sinks.many().multicast().directBestEffort();

    /**
     * What this controller stores of the run and sets on it, for as long as the returned flux is subscribed; {@link
     * #release} once it no longer is.
     */
    Flux<RunSignal> watch(long runId) {
        return watched.computeIfAbsent(runId, id -> Sinks.many().multicast().directBestEffort()).asFlux();
    }

    /** A watch of the run ended: it costs nothing more once no other watch of it here is subscribed. */
    void release(long runId) {
        watched.computeIfPresent(runId, (id, sink) -> sink.currentSubscriberCount() == 0 ? null : sink);
    }

    /** Called after a frame is stored (not for replays). */
    public void stored(IntervalFrame frame) {
        Sinks.Many<RunSignal> sink = watched.get(frame.runId());
        if (sink != null) {
            emit(sink, new RunSignal.Frame(frame.seq(), frame.cycles(), perThread(frame.intervals())));
        }
    }

    /** The ids of runs that start or end on this controller, from now on (a watched experiment reads itself again). */
    public Flux<Long> statusChanges() {
        return statusChanges.asFlux();
    }

    /** Called once the run is marked RUNNING on its agent: its watchers get a "status" event (agent, start time). */
    public void started(long runId) {
        changed(runId);
        Sinks.Many<RunSignal> sink = watched.get(runId);
        if (sink != null) {
            emit(sink, new RunSignal.Status("RUNNING"));
        }
    }

    /** Called once the run's end is stored. */
    public void ended(long runId, String status) {
        changed(runId);
        Sinks.Many<RunSignal> sink = watched.remove(runId);
        if (sink != null) {
            emit(sink, new RunSignal.Status(status));
            synchronized (sink) {
                sink.tryEmitComplete();
            }
        }
    }

    private void changed(long runId) {
        synchronized (statusChanges) { // a sink takes one emitter at a time; runs start and end on several threads
            statusChanges.tryEmitNext(runId);
        }
    }

    private static void emit(Sinks.Many<RunSignal> sink, RunSignal signal) {
        synchronized (sink) { // frames of one run are stored by several writers: one emitter at a time
            sink.tryEmitNext(signal);
        }
    }

    /** One entry per interval, in (thread, interval) order: what a watcher is shown of them. */
    static List<LiveEvent.ThreadProgress> perThread(List<Interval> intervals) {
        return intervals.stream()
                .sorted(Comparator.comparingInt(Interval::thread).thenComparingLong(Interval::index))
                .map(i -> new LiveEvent.ThreadProgress(i.thread(), i.index(), i.cycles(), i.bytes(), i.firstStartNs(),
                        i.lastEndNs(), i.percentileNs(0.5), i.percentileNs(0.99), i.percentileNs(0.999)))
                .toList();
    }
}
