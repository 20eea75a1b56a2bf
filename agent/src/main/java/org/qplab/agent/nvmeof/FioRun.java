package org.qplab.agent.nvmeof;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.qplab.protocol.Interval;

/**
 * One fio process (started from an argv list, never through a shell): its stdout read on a thread of its own into
 * {@link FioOutput} as the status dumps come, the last {@value #STDERR_TAIL} bytes of its stderr kept for errors.
 * fio forks its jobs as processes: {@link #close} kills them too.
 */
public final class FioRun implements AutoCloseable {

    static final int STDERR_TAIL = 4096;
    static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final Process process;
    private final FioOutput output = new FioOutput();
    private final Thread stdoutReader;
    private final Thread stderrReader;
    private final byte[] stderr = new byte[STDERR_TAIL];
    private long stderrBytes;
    private volatile boolean stopped;

    private FioRun(Process process) {
        this.process = process;
        this.stdoutReader = daemon("fio-stdout-" + process.pid(), () -> output.read(process.getInputStream()));
        this.stderrReader = daemon("fio-stderr-" + process.pid(), () -> keepTail(process.getErrorStream()));
    }

    private static Thread daemon(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Starts fio (argv[0] is the fio executable); IllegalStateException naming fio and the cause if it cannot. */
    public static FioRun start(List<String> argv) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("fio's argv is empty");
        }
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            return new FioRun(pb.start());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot start fio (" + argv.get(0) + "): " + e.getMessage(), e);
        }
    }

    private void keepTail(InputStream in) {
        byte[] buf = new byte[1024];
        try (in) {
            int n;
            while ((n = in.read(buf)) != -1) {
                synchronized (stderr) {
                    for (int i = 0; i < n; i++) {
                        stderr[(int) (stderrBytes++ % STDERR_TAIL)] = buf[i];
                    }
                }
            }
        } catch (IOException e) {
            // the process is gone; what was read is kept
        }
    }

    /** The last bytes fio wrote to stderr (up to {@value #STDERR_TAIL}), trimmed. */
    public String stderrTail() {
        synchronized (stderr) {
            int n = (int) Math.min(stderrBytes, STDERR_TAIL);
            byte[] tail = new byte[n];
            int start = (int) ((stderrBytes - n) % STDERR_TAIL);
            for (int i = 0; i < n; i++) {
                tail[i] = stderr[(start + i) % STDERR_TAIL];
            }
            return new String(tail, StandardCharsets.UTF_8).strip();
        }
    }

    /** Moves the intervals closed since the last call into into; returns how many. Safe against the reader. */
    public int drainIntervals(List<Interval> into) {
        return output.drainIntervals(into);
    }

    /** Waits up to timeout for fio to exit and its output to be read to the end; true once both are. */
    public boolean awaitEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return false;
            }
            stdoutReader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            stderrReader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return ended();
    }

    private boolean ended() {
        return !process.isAlive() && !stdoutReader.isAlive() && !stderrReader.isAlive();
    }

    /**
     * Ends fio early: SIGTERM, on which fio stops its jobs and prints its final report; SIGKILL (fio and its job
     * processes) if it has not exited after {@link #STOP_GRACE}. Returns once fio has exited.
     */
    public void stop() {
        if (!process.isAlive()) {
            return;
        }
        stopped = true;
        List<ProcessHandle> jobs = process.descendants().toList();
        process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close fio's stdout before its report
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(jobs);
                process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(jobs);
        }
    }

    /**
     * The run's figures ({@link FioOutput#summary}) plus {@code stopped}; once fio has ended. IllegalStateException
     * with fio's exit code and the tail of its stderr when it failed, or printed no complete final report.
     */
    public Map<String, Object> summary() {
        if (!ended()) {
            throw new IllegalStateException("fio (pid " + pid() + ") has not ended");
        }
        int code = process.exitValue();
        String failure = output.error();
        // fio exits non-zero after a SIGTERM too, with its final report printed in full
        boolean complete = code == 0 || stopped && failure == null && output.dumps() > 0;
        if (!complete) {
            throw new IllegalStateException(failed(code, failure));
        }
        try {
            Map<String, Object> summary = new LinkedHashMap<>(output.summary());
            summary.put("stopped", stopped);
            return summary;
        } catch (IllegalStateException e) {
            throw new IllegalStateException(failed(code, e.getMessage()), e);
        }
    }

    private String failed(int code, String outputProblem) {
        String tail = stderrTail();
        return "fio (pid " + pid() + ") exited with code " + code + (stopped ? " after it was stopped" : "")
                + (tail.isEmpty() ? "" : ": " + tail) + (outputProblem == null ? "" : "; " + outputProblem);
    }

    public long pid() {
        return process.pid();
    }

    /** Kills fio and its job processes if still alive (SIGKILL); waits briefly for the readers. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill(process.descendants().toList());
            try {
                process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            stdoutReader.join(STOP_GRACE.toMillis());
            stderrReader.join(STOP_GRACE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL to fio and its job processes (listed while fio was alive: once it is gone they are orphans). */
    private void kill(List<ProcessHandle> jobs) {
        process.toHandle().destroyForcibly(); // leaves the pipes to the readers, which see their end
        jobs.forEach(ProcessHandle::destroyForcibly);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }
}
