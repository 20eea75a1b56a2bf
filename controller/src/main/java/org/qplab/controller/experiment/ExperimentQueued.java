package org.qplab.controller.experiment;

/** An experiment's runs were stored as QUEUED: whoever hands runs to agents may have work now. */
public record ExperimentQueued(long experimentId) {}
