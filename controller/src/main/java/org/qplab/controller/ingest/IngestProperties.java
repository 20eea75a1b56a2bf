package org.qplab.controller.ingest;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.ingest.*
 *
 * @param writers      threads (and database connections) writing frames, each a group at a time
 * @param maxGroupRows the most rows one group transaction takes (262,144 rows are about 20 MiB of COPY data)
 * @param linger       how long a writer that has taken a frame waits for more to join its group when none are waiting:
 *                     a group's transaction costs PostgreSQL about the same whether it stores a few frames or many, so
 *                     under a light load this saves its CPU for the price of a few ms of latency (0: no wait; under a
 *                     heavy load frames are waiting anyway and nobody waits)
 */
@ConfigurationProperties("qplab.ingest")
public record IngestProperties(@DefaultValue("2") int writers, @DefaultValue("262144") long maxGroupRows,
                               @DefaultValue("10ms") Duration linger) {

    public IngestProperties {
        if (writers < 1) {
            throw new IllegalArgumentException("qplab.ingest.writers must be at least 1, got " + writers);
        }
        if (maxGroupRows < 1) {
            throw new IllegalArgumentException("qplab.ingest.max-group-rows must be at least 1, got " + maxGroupRows);
        }
        if (linger.isNegative() || linger.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("qplab.ingest.linger must be from 0 to 1s, got " + linger);
        }
    }
}
