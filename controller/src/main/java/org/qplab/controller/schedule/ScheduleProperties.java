package org.qplab.controller.schedule;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.schedule.*
 *
 * @param runTimeout  how long a pair run by iterations may run before it is stopped and failed (a run by
 *                    duration_ms may run for its duration + 60 s)
 * @param maxAttempts how many times a point of the matrix is tried when its runs fail for reasons that may pass
 *                    (agent lost, a step timed out, a system call, the network or the peer failed); 1 = never
 *                    retry
 * @param tick        how often the scheduler sweeps for orphaned and timed-out runs and dispatches, even when
 *                    nothing woke it
 */
@ConfigurationProperties("qplab.schedule")
public record ScheduleProperties(@DefaultValue("30m") Duration runTimeout, @DefaultValue("3") int maxAttempts,
                                 @DefaultValue("2s") Duration tick) {

    public ScheduleProperties {
        if (runTimeout.isNegative() || runTimeout.isZero()) {
            throw new IllegalArgumentException("qplab.schedule.run-timeout must be positive, got " + runTimeout);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("qplab.schedule.max-attempts must be at least 1, got " + maxAttempts);
        }
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("qplab.schedule.tick must be positive, got " + tick);
        }
    }
}
