package org.qplab.controller.history;

import java.time.OffsetDateTime;
import java.util.Map;

/** The baseline of a fingerprint: the run marked as such, with what the fingerprint is made of. */
public record Baseline(String fingerprint, long runId, long experimentId, String experimentName,
                       Map<String, Object> params, Map<String, Object> host, OffsetDateTime markedAt) {}
