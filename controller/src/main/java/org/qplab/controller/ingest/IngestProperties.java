package org.qplab.controller.ingest;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.ingest.*
 *
 * @param writers      threads (and database connections) writing frames, each a group at a time
 * @param maxGroupRows the most rows one group transaction takes (262,144 rows are about 20 MiB of COPY data)
 */
@ConfigurationProperties("qplab.ingest")
public record IngestProperties(@DefaultValue("2") int writers, @DefaultValue("262144") long maxGroupRows) {

    public IngestProperties {
        if (writers < 1) {
            throw new IllegalArgumentException("qplab.ingest.writers must be at least 1, got " + writers);
        }
        if (maxGroupRows < 1) {
            throw new IllegalArgumentException("qplab.ingest.max-group-rows must be at least 1, got " + maxGroupRows);
        }
    }
}
