package org.qplab.controller.agent;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Failed hellos per remote address: after qplab.agents.failed-hello-limit of them within a minute, hellos from the
 * address are refused for qplab.agents.failed-hello-block (a token guessed 300 times in 3 s met nothing before), but
 * for those with a token of their own ({@link AgentAdmission}): others' failures never lock a valid agent out.
 */
@Component
class HelloThrottle {

    static final Duration WINDOW = Duration.ofMinutes(1);

    /** Failures of one address since windowStart, and until when it is refused (0: it is not). */
    private static final class Failures {
        long windowStart;
        int count;
        long blockedUntil;
    }

    private final ConcurrentHashMap<InetAddress, Failures> failures = new ConcurrentHashMap<>();
    private final int limit;
    private final long blockNanos;
    private final java.util.function.LongSupplier clock;

    @Autowired
    HelloThrottle(AgentProperties properties) {
        this(properties.failedHelloLimit(), properties.failedHelloBlock(), System::nanoTime);
    }

    HelloThrottle(int limit, Duration block, java.util.function.LongSupplier clock) {
        this.limit = limit;
        this.blockNanos = block.toNanos();
        this.clock = clock;
    }

    /** How long the address is still refused (zero when it is not). */
    Duration blocked(InetSocketAddress remote) {
        Failures f = remote == null ? null : failures.get(remote.getAddress());
        if (f == null) {
            return Duration.ZERO;
        }
        synchronized (f) {
            long left = f.blockedUntil - clock.getAsLong();
            return f.blockedUntil == 0 || left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
        }
    }

    /** Forgets every address's failures and block: tests start from none, whatever the tests before them failed. */
    void forgetAll() {
        failures.clear();
    }

    /** A hello from the address was refused (or never came). */
    void failed(InetSocketAddress remote) {
        if (remote == null || remote.getAddress() == null) {
            return;
        }
        long now = clock.getAsLong();
        Failures f = failures.computeIfAbsent(remote.getAddress(), a -> new Failures());
        synchronized (f) {
            if (f.count == 0 || now - f.windowStart > WINDOW.toNanos()) {
                f.windowStart = now;
                f.count = 0;
            }
            if (++f.count >= limit) {
                f.blockedUntil = now + blockNanos;
                f.count = 0;
            }
        }
        if (failures.size() > 10_000) { // addresses whose window and block are over are forgotten
            failures.entrySet().removeIf(e -> {
                synchronized (e.getValue()) {
                    return now - e.getValue().windowStart > WINDOW.toNanos() && now - e.getValue().blockedUntil > 0;
                }
            });
        }
    }
}
