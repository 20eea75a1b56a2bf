package org.qplab.controller.quota;

import org.qplab.controller.api.QuotaExceeded;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * What a submit may add to the queue. Called in the transaction that stores the experiment, after a transaction-level
 * advisory lock that every submit takes: two submits cannot both see room for their runs, and the lock goes with the
 * transaction. Runs a retry queues (qplab.schedule.max-attempts) replace a failed one and are not refused.
 * Blocking: call through {@link org.qplab.controller.database.Jdbc}.
 */
@Component
public class Quotas {

    /** The advisory lock key of submits ("qplab" in ASCII). */
    private static final long SUBMIT_LOCK = 0x71706C6162L;

    private final JdbcClient jdbc;
    private final LimitsProperties limits;

    public Quotas(JdbcClient jdbc, LimitsProperties limits) {
        this.jdbc = jdbc;
        this.limits = limits;
    }

    /**
     * Admits a submit of this many runs, or throws {@link QuotaExceeded} (429) naming the limit it would pass.
     * Must run inside the transaction that stores the runs.
     *
     * @param submitter the account that submits (null: none, e.g. an import): its own queued runs are limited by
     *                  qplab.limits.user-queued-runs
     */
    public void admit(String submitter, long runs) {
        jdbc.sql("SELECT pg_advisory_xact_lock(?)").param(SUBMIT_LOCK).query((rs, i) -> 0).single();
        long queued = jdbc.sql("SELECT count(*) FROM run WHERE status IN ('QUEUED', 'RUNNING')").query(Long.class).single();
        if (queued + runs > limits.queuedRuns()) {
            throw new QuotaExceeded("qplab.limits.queued-runs", limits.queuedRuns(), queued, runs,
                    String.format("the queue holds at most %,d runs (qplab.limits.queued-runs) and %,d are queued or"
                            + " running now: this matrix's %,d runs do not fit; submit it when runs have finished, or"
                            + " cancel some", limits.queuedRuns(), queued, runs));
        }
        if (submitter != null) {
            long mine = jdbc.sql("""
                            SELECT count(*) FROM run r JOIN experiment e ON e.id = r.experiment_id
                            WHERE r.status IN ('QUEUED', 'RUNNING') AND e.submitted_by = ?""")
                    .param(submitter).query(Long.class).single();
            if (mine + runs > limits.userQueuedRuns()) {
                throw new QuotaExceeded("qplab.limits.user-queued-runs", limits.userQueuedRuns(), mine, runs,
                        String.format("one account may have at most %,d runs queued or running (qplab.limits.user-queued-runs)"
                                + " and %s has %,d now: this matrix's %,d runs do not fit; submit it when runs have"
                                + " finished, or cancel some", limits.userQueuedRuns(), submitter, mine, runs));
            }
        }
    }
}
