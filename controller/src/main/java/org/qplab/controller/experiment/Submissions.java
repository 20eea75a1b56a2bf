package org.qplab.controller.experiment;

import java.util.List;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.quota.Quotas;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.ObjectMapper;

/**
 * The one way a matrix becomes a queued experiment: read (JSON or YAML) and expanded against the agents connected now
 * and the hosts known here, admitted by the quotas and stored with its runs in one transaction, then announced to the
 * run scheduler. POST /api/experiments and the recurring schedules (org.qplab.controller.recurring) both submit
 * through it, so both are validated, limited and owned alike.
 */
@Component
public class Submissions {

    /** Expanding a matrix asks the native engine about each point: off the event loop, a few at a time. */
    private static final Scheduler MATRIX_CHECKS = Schedulers.newBoundedElastic(4, 64, "matrix-check", 60, true);

    private final Jdbc jdbc;
    private final ExperimentRepository experiments;
    private final ApplicationEventPublisher events;
    private final MatrixReader reader;
    private final MatrixExpander expander;
    private final AgentRegistry agents;
    private final KnownHosts knownHosts;
    private final RunHistory history;
    private final Quotas quotas;
    private final TransactionTemplate tx;

    Submissions(Jdbc jdbc, ExperimentRepository experiments, ApplicationEventPublisher events, ObjectMapper json,
                ExperimentProperties properties, AgentRegistry agents, KnownHosts knownHosts, RunHistory history,
                Quotas quotas, TransactionTemplate tx, ExpectCheck expect) {
        this.jdbc = jdbc;
        this.experiments = experiments;
        this.events = events;
        this.reader = new MatrixReader(json);
        this.expander = new MatrixExpander(json, properties.maxRuns(), expect);
        this.agents = agents;
        this.knownHosts = knownHosts;
        this.history = history;
        this.quotas = quotas;
        this.tx = tx;
    }

    /**
     * The body read as its Content-Type says and expanded, its points judged against the agents connected now and the
     * hosts known here (off the event loop: the engine checks each point natively). Fails with
     * {@link InvalidMatrixException} listing every violation.
     */
    public Mono<Matrix> expand(byte[] body, String contentType) {
        return jdbc.call(knownHosts::all)
                .map(known -> new HostCapabilities(agents::connectedFacts, agents.connectedFacts(), known))
                .publishOn(MATRIX_CHECKS)
                .map(hosts -> expander.expand(reader.read(body == null ? new byte[0] : body, mediaType(contentType)),
                        hosts));
    }

    /**
     * Admits the matrix's runs (429 past a limit) and stores the experiment, owned by that account, with its runs,
     * QUEUED: in the caller's transaction when there is one, else in its own. Blocking: call through {@link Jdbc}; then
     * {@link #announce} it once that transaction has committed.
     */
    public Experiment store(Matrix matrix, String owner) {
        return tx.execute(status -> {
            quotas.admit(owner, matrix.runs().size());
            return experiments.find(experiments.create(matrix, owner)).orElseThrow().withWarnings(matrix.warnings());
        });
    }

    /** Tells the run scheduler a stored experiment has queued runs. */
    public void announce(long experimentId) {
        events.publishEvent(new ExperimentQueued(experimentId));
    }

    /** How long the matrix's runs would take one after another. Blocking: reads finished runs. */
    public RunsEstimate estimate(Matrix matrix) {
        return DurationEstimate.of(matrix, history);
    }

    private static MediaType mediaType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        try {
            return MediaType.parseMediaType(contentType);
        } catch (InvalidMediaTypeException e) {
            throw new InvalidMatrixException(List.of(new Violation("Content-Type", "is not a media type: " + contentType)));
        }
    }
}
