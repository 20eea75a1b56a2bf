package org.qplab.controller.schedule;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.schedule.* (and qplab.schedule.tick, default 2s: how often the scheduler sweeps for orphaned and
 * timed-out runs even when nothing woke it)
 *
 * @param runTimeout  how long a pair run by iterations may run before it is stopped and failed (default 30m;
 *                    a run by duration_ms may run for its duration + 60 s)
 * @param maxAttempts how many times a point of the matrix is tried when its runs fail for reasons that may pass
 *                    (agent lost, a step timed out, a system call, the network or the peer failed); 1 = never
 *                    retry (default 3)
 */
@ConfigurationProperties("qplab.schedule")
public record ScheduleProperties(@DefaultValue("30m") Duration runTimeout, @DefaultValue("3") int maxAttempts) {

    public ScheduleProperties {
        if (runTimeout.isNegative() || runTimeout.isZero()) {
            throw new IllegalArgumentException("qplab.schedule.run-timeout must be positive, got " + runTimeout);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("qplab.schedule.max-attempts must be at least 1, got " + maxAttempts);
        }
    }
}
