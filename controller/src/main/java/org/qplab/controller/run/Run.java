package org.qplab.controller.run;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.Map;

/**
 * A run as the API shows it: its engine parameters, where and when it ran, its summary once finished,
 * (a pair run's: the client's; the server's, what the receiving side reported, is serverSummary; both carry
 * "cpu", "counters" and "warnings", qpb.h), its fingerprint once it has started on a host (parameters + host, see Fingerprint) and
 * whether it is the baseline of that fingerprint. attempt is the try of its point of the matrix (1, 2, ...):
 * a failed try that was tried again names the run that replaced it (supersededBy), the new try the one it
 * replaces (retryOf). cyclesStored: the cycles its stored intervals count (every cycle that reached the
 * controller; equal to the summary's cycles once it finished). partial: the run ended early (FAILED or
 * CANCELLED) and keeps the cyclesStored cycles that reached the controller before. traceStored: the per-cycle
 * trace records kept (0 once deleted: traceDeletedAt). In a bidirectional run the server sends too: its
 * serverSummary is then what it sent (side sender), as summary is what the client sent. expectation: how it met its
 * experiment's expect rules, once it finished.
 */
@Schema(description = "A run: its engine parameters, where and when it ran, its summary once it ended (see "
        + "getRunSummary; a pair run's receiving side in serverSummary, null for a loopback run), its fingerprint once it started on a host, and what it keeps stored. A failed try that was "
        + "tried again names the run that replaced it (supersededBy); partial: it ended early and keeps the "
        + "cyclesStored cycles that reached the controller.")
public record Run(long id, long experimentId, int index, int repeat, Map<String, Object> params,
                  @Schema(allowableValues = {"messages", "ios"}, description = "What one counted cycle of the run is, "
                          + "as its provider says: a message (the engine's tcp and verbs; rates are msg_rate) or an "
                          + "I/O (nvmeof's fio; rates are iops). An imported run counts messages.")
                  String counts,
                  @Schema(description = "Where the matrix placed the run: client/server for a pair of hosts, client "
                          + "for loopback on a named host; null for loopback on any agent.", nullable = true)
                  String hosts,
                  @Schema(allowableValues = {"QUEUED", "RUNNING", "FINISHED", "FAILED", "CANCELLED"}) String status,
                  String agentId, int attempt, OffsetDateTime startedAt, OffsetDateTime finishedAt, String error,
                  Map<String, Object> summary, Map<String, Object> serverSummary, String fingerprint, boolean baseline, Long supersededBy, Long retryOf,
                  boolean partial, long cyclesStored, long traceStored, OffsetDateTime traceDeletedAt,
                  @Schema(description = "How the run met its experiment's expect rules, judged when it finished; null "
                          + "when the experiment has none, or the run has not finished.", nullable = true)
                  RunExpectation expectation) {}
