package org.qplab.controller.recurring;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.cluster.Leadership;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.database.SchemaVersion;
import org.qplab.controller.experiment.Matrix;
import org.qplab.controller.experiment.Submissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Fires the recurring schedules that are due, once a second (one pass at a time). Each due occurrence is claimed
 * through PostgreSQL ({@link RecurringRepository#claim}) in the transaction that records what it produced, so that no
 * two passes, nor two controllers on one database, fire it twice: the previous occurrence's experiment still queued
 * or running skips it; otherwise its matrix is submitted as POST /api/experiments submits one ({@link Submissions}),
 * as its owner, behind a savepoint: a refused submit (an invalid matrix now, a quota) is recorded as FAILED with its
 * error, and the schedule goes on.
 *
 * <p>Runs on the leader only ({@link Leadership#leads()}): the claim alone already fires each occurrence once across
 * controllers, but every controller would expand each due matrix and wait on the schedule's row lock for a claim that
 * one of them wins; the others' passes do nothing.
 */
@Component
class RecurringTicker implements SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(RecurringTicker.class);
    static final Duration TICK = Duration.ofSeconds(1);

    private final Jdbc jdbc;
    private final RecurringRepository schedules;
    private final Submissions submissions;
    private final TransactionTemplate tx;
    private final TransactionTemplate savepoint;
    private final AtomicBoolean firing = new AtomicBoolean();
    private final SchemaVersion schema;
    private final Leadership leadership;

    RecurringTicker(Jdbc jdbc, RecurringRepository schedules, Submissions submissions,
                    PlatformTransactionManager transactions, SchemaVersion schema, Leadership leadership) {
        this.jdbc = jdbc;
        this.leadership = leadership;
        this.schema = schema;
        this.schedules = schedules;
        this.submissions = submissions;
        this.tx = new TransactionTemplate(transactions);
        this.savepoint = new TransactionTemplate(transactions);
        this.savepoint.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(this::tick, TICK);
    }

    /**
     * Starts a pass over the due schedules unless one is under way or another controller leads; never blocks the
     * calling thread.
     */
    void tick() {
        if (!leadership.leads() || !firing.compareAndSet(false, true)) {
            return;
        }
        jdbc.call(() -> schema.allowsScheduling() ? schedules.due(Instant.now(), ZoneId.systemDefault())
                        : List.<RecurringRepository.Due>of())
                .flatMapMany(Flux::fromIterable)
                .concatMap(this::fire)
                .doFinally(signal -> firing.set(false))
                .subscribe(occurrence -> { }, e -> log.warn("recurring schedules: a pass failed: {}", e.toString()));
    }

    /** What one due occurrence produced; empty when another pass or controller claimed it first. */
    private Mono<Fired> fire(RecurringRepository.Due due) {
        return submissions.expand(due.matrix().getBytes(StandardCharsets.UTF_8), due.contentType())
                .map(Expanded::of)
                .onErrorResume(RuntimeException.class, e -> Mono.just(Expanded.refused(e)))
                .flatMap(expanded -> jdbc.call(() -> occur(due, expanded)))
                .doOnNext(fired -> {
                    if (fired.experimentId() != null) {
                        submissions.announce(fired.experimentId());
                    }
                    log.info("recurring schedule {}: occurrence due {} {}{}", due.id(), due.dueAt(), fired.outcome(),
                            fired.experimentId() != null ? ": experiment " + fired.experimentId()
                                    : fired.reason() != null ? ": " + fired.reason() : "");
                })
                .onErrorResume(e -> {
                    log.warn("recurring schedule {}: the occurrence due {} failed: {}", due.id(), due.dueAt(), e.toString());
                    return Mono.empty();
                });
    }

    /** The matrix as expanded now, or why it was refused. */
    record Expanded(Matrix matrix, String refusal) {
        static Expanded of(Matrix matrix) {
            return new Expanded(matrix, null);
        }

        static Expanded refused(RuntimeException e) {
            return new Expanded(null, why(e));
        }
    }

    /** An occurrence's outcome. */
    record Fired(String outcome, Long experimentId, String reason) {}

    /**
     * In one transaction: the claim, then the skip, the experiment or the submit's error, recorded. Null when the
     * claim lost (empty Mono).
     */
    Fired occur(RecurringRepository.Due due, Expanded expanded) {
        return tx.execute(status -> {
            Instant now = Instant.now();
            if (!schedules.claim(due.id(), due.dueAt(), due.cadence().following(due.dueAt().toInstant(), now))) {
                return null;
            }
            Fired fired = schedules.active(due.id())
                    .map(active -> new Fired("SKIPPED", null, "experiment " + active.experimentId() + " of the "
                            + "occurrence due " + active.dueAt() + " is still " + active.status() + ": one occurrence "
                            + "runs at a time"))
                    .orElseGet(() -> expanded.refusal() != null ? new Fired("FAILED", null, expanded.refusal())
                            : submit(expanded.matrix(), due.owner()));
            schedules.record(due.id(), due.dueAt(), fired.outcome(), fired.experimentId(), fired.reason());
            return fired;
        });
    }

    /** The submit, behind a savepoint: refused, it leaves nothing but the FAILED occurrence. */
    private Fired submit(Matrix matrix, String owner) {
        try {
            return savepoint.execute(status -> new Fired("SUBMITTED", submissions.store(matrix, owner).id(), null));
        } catch (RuntimeException e) {
            return new Fired("FAILED", null, why(e));
        }
    }

    /** A refusal in words: a 400's violations listed, else its message. */
    private static String why(RuntimeException e) {
        if (e instanceof BadRequest bad) {
            return bad.error() + ": " + bad.violations().stream()
                    .map(v -> v.field().isEmpty() ? v.message() : v.field() + ": " + v.message())
                    .collect(Collectors.joining("; "));
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
