package org.qplab.controller.ingest;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.qplab.controller.metrics.QplabMetrics;
import org.qplab.protocol.IntervalFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Stores frames with group commit: frames from every agent queue here, and each of
 * qplab.ingest.writers threads takes all that are waiting (up to qplab.ingest.max-group-rows rows) into one
 * transaction ({@link FrameWriter}): one COPY, one commit, one WAL flush for many frames; a writer waits up to
 * qplab.ingest.linger for more frames to join a group when none are waiting. A frame's
 * future completes once its transaction committed (true) or when it had been stored before (false: a
 * replay). A group that fails is written again frame by frame, so one bad frame fails alone.
 */
@Component
public class FrameIngest implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(FrameIngest.class);

    private record Pending(IntervalFrame frame, CompletableFuture<Boolean> stored) {}

    private final DataSource dataSource;
    private final QplabMetrics metrics;
    private final IngestProperties properties;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final List<Thread> writers = new ArrayList<>();
    private volatile boolean running;

    public FrameIngest(DataSource dataSource, QplabMetrics metrics, IngestProperties properties) {
        this.dataSource = dataSource;
        this.metrics = metrics;
        this.properties = properties;
    }

    /** Queues the frame; the future says, once it is committed, whether it was new. Never blocks. */
    public CompletableFuture<Boolean> submit(IntervalFrame frame) {
        CompletableFuture<Boolean> stored = new CompletableFuture<>();
        if (!running) {
            stored.completeExceptionally(new IllegalStateException("the ingest is stopped"));
        } else {
            queue.add(new Pending(frame, stored));
        }
        return stored;
    }

    /** Stores the frame and waits for it; false when it was stored before (a replay). Blocking. */
    public boolean store(IntervalFrame frame) throws SQLException {
        try {
            return submit(frame).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new CompletionException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while storing a frame", e);
        }
    }

    private void writeLoop() {
        List<Pending> group = new ArrayList<>();
        while (running || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                long rows = rows(first.frame());
                long until = System.nanoTime() + properties.linger().toNanos();
                while (rows < properties.maxGroupRows()) {
                    Pending next = queue.poll();
                    if (next == null) { // none waiting: linger a little for more to join, if it may
                        long left = until - System.nanoTime();
                        if (left <= 0 || !running || (next = queue.poll(left, TimeUnit.NANOSECONDS)) == null) {
                            break;
                        }
                    }
                    group.add(next);
                    rows += rows(next.frame());
                }
                write(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                group.clear();
            }
        }
    }

    /** The rows a frame adds: its intervals and its trace records. */
    private static long rows(IntervalFrame frame) {
        return frame.count() + (long) frame.intervalCount();
    }

    private void write(List<Pending> group) {
        try (Connection c = dataSource.getConnection()) {
            List<Boolean> fresh = FrameWriter.write(c, group.stream().map(Pending::frame).toList());
            for (int i = 0; i < group.size(); i++) {
                metrics.ingested(group.get(i).frame(), fresh.get(i));
                group.get(i).stored().complete(fresh.get(i));
            }
        } catch (SQLException | RuntimeException e) {
            if (group.size() == 1) {
                group.get(0).stored().completeExceptionally(e);
            } else {
                log.info("a group of {} frames failed ({}); writing them one by one", group.size(), e.getMessage());
                for (Pending p : group) {
                    write(List.of(p));
                }
            }
        }
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < properties.writers(); i++) {
            Thread t = new Thread(this::writeLoop, "qplab-ingest-" + i);
            t.setDaemon(true);
            t.start();
            writers.add(t);
        }
    }

    /** Stops taking frames; what is queued is written first. */
    @Override
    public void stop() {
        running = false;
        for (Thread t : writers) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        writers.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops after the web server (which stops later-starting beans first) and before the database. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE / 2;
    }
}
