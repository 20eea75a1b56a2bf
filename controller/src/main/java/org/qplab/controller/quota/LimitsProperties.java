package org.qplab.controller.quota;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.limits.* (the runs one matrix may expand to is qplab.experiments.max-runs)
 *
 * @param queuedRuns the most runs queued or running at once, across all experiments: a submit that would go beyond
 *                   it answers 429 and stores nothing
 * @param userQueuedRuns the most runs one account may have queued or running at once; 429 likewise
 */
@ConfigurationProperties("qplab.limits")
public record LimitsProperties(@DefaultValue("100000") long queuedRuns, @DefaultValue("20000") long userQueuedRuns) {}
