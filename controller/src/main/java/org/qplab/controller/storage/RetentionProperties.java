package org.qplab.controller.storage;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.retention.*
 *
 * @param trace      how long an ended run keeps its per-cycle trace rows (e.g. 30d); unset: kept until deleted by
 *                   hand. Intervals, summaries and histograms are always kept.
 * @param check      how often the trace rows older than trace are looked for and deleted
 * @param firstCheck how long after start they are looked for the first time
 */
@ConfigurationProperties("qplab.retention")
public record RetentionProperties(Duration trace, @DefaultValue("1h") Duration check,
                                  @DefaultValue("1m") Duration firstCheck) {

    public RetentionProperties {
        if (trace != null && (trace.isNegative() || trace.isZero())) {
            throw new IllegalArgumentException("qplab.retention.trace must be a positive duration like 30d, got " + trace);
        }
    }
}
