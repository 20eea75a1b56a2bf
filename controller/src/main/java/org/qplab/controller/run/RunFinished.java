package org.qplab.controller.run;

/** A run ended FINISHED, its summary stored: what watches a fingerprint's series over time may look again. */
public record RunFinished(long runId) {}
