package org.qplab.controller.storage;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * qplab.retention.*
 *
 * @param trace how long an ended run keeps its per-cycle trace rows (e.g. {@code 30d}); unset (the default):
 *              kept until deleted by hand. Intervals, summaries and histograms are always kept.
 */
@ConfigurationProperties("qplab.retention")
public record RetentionProperties(Duration trace) {

    public RetentionProperties {
        if (trace != null && (trace.isNegative() || trace.isZero())) {
            throw new IllegalArgumentException("qplab.retention.trace must be a positive duration like 30d, got " + trace);
        }
    }
}
