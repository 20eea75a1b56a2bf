package org.qplab.controller.metrics;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.metrics.*
 *
 * @param refresh how often the run counts of qplab_runs are read from PostgreSQL (off the scrape's thread); the
 *                first read is at start
 */
@ConfigurationProperties("qplab.metrics")
public record MetricsProperties(@DefaultValue("5s") Duration refresh) {}
