package org.qplab.controller.experiment;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.experiments.*
 *
 * @param maxRuns the most runs one matrix may expand to
 */
@ConfigurationProperties("qplab.experiments")
public record ExperimentProperties(@DefaultValue("10000") long maxRuns) {}
