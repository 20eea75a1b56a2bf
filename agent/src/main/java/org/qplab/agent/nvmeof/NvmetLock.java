package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One writer of qplab's nvmet objects per host at a time: held while a run makes a port and links it, allows a host,
 * or tears either down, and while {@link Leftovers} looks for what dead runs left. Under it, a port in qplab's range
 * with no subsystem linked, or a qplab host entry no subsystem allows, can only be a dead run's (an agent killed
 * between mkdir and ln, or between unlink and rmdir): no live run of any agent on the host is in that window.
 *
 * <p>A POSIX record lock on {@code /run/lock/qplab-nvmet.lock} (the kernel drops it when its holder dies, so a killed
 * agent never leaves it held) and, since such locks are per process, a lock within this JVM for its own runs.
 */
final class NvmetLock implements AutoCloseable {

    /** How long a step waits for another agent's step; configfs writes take milliseconds. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static final ReentrantLock IN_JVM = new ReentrantLock();

    /** Holds the file lock (closing it releases the lock); null when this thread already held both locks. */
    private final FileChannel channel;

    private NvmetLock(FileChannel channel) {
        this.channel = channel;
    }

    static Path file(NvmeofHost host) {
        return host.locks().resolve("qplab-nvmet.lock");
    }

    /** Waits up to TIMEOUT; throws naming step and the lock file when another agent holds it that long. */
    static NvmetLock acquire(NvmeofHost host, String step) {
        return acquire(host, step, TIMEOUT);
    }

    static NvmetLock acquire(NvmeofHost host, String step, Duration timeout) {
        Path path = file(host);
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!IN_JVM.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw held(step, path, timeout, "another run of this agent");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw NvmeofException.failed(step + ": interrupted while waiting for " + path);
        }
        if (IN_JVM.getHoldCount() > 1) { // this thread already holds both
            return new NvmetLock(null);
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(path.getParent());
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            for (;;) {
                if (channel.tryLock() != null) {
                    return new NvmetLock(channel);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw held(step, path, timeout, "another qplab agent on this host");
                }
                Thread.sleep(10);
            }
        } catch (IOException | OverlappingFileLockException e) {
            release(channel);
            throw NvmeofException.failed(step + ": locking " + path + ": " + (e instanceof IOException io
                    ? Command.errno(io) : e.toString()));
        } catch (InterruptedException e) {
            release(channel);
            Thread.currentThread().interrupt();
            throw NvmeofException.failed(step + ": interrupted while waiting for " + path);
        } catch (RuntimeException e) {
            release(channel);
            throw e;
        }
    }

    private static NvmeofException held(String step, Path path, Duration timeout, String who) {
        return NvmeofException.failed(step + ": " + who + " has held " + path + " for more than " + (timeout.toMillis() % 1000 == 0
                ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms") + " (stuck in a configfs write? its agent's log says which step)");
    }

    private static void release(FileChannel channel) {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // closing drops the lock
        } finally {
            IN_JVM.unlock();
        }
    }

    @Override
    public void close() {
        release(channel); // closing the channel releases its file lock; then the one within the JVM
    }
}
