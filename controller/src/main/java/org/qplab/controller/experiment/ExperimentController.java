package org.qplab.controller.experiment;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.run.Run;
import org.qplab.controller.run.RunRepository;
import org.qplab.protocol.AgentMessage;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** /api/experiments: submit a matrix (JSON or YAML), list experiments, one experiment, its runs, cancel, delete. */
@RestController
@RequestMapping("/api/experiments")
@Tag(name = ApiTags.EXPERIMENTS)
class ExperimentController {

    private final Jdbc jdbc;
    private final ExperimentRepository experiments;
    private final RunRepository runs;
    private final Submissions submissions;
    private final AgentRegistry agents;

    ExperimentController(Jdbc jdbc, ExperimentRepository experiments, RunRepository runs, Submissions submissions,
                         AgentRegistry agents) {
        this.jdbc = jdbc;
        this.experiments = experiments;
        this.runs = runs;
        this.submissions = submissions;
        this.agents = agents;
    }

    /** 201; 400 listing every violation of the matrix; 429 when its runs would pass qplab.limits.queued-runs. */
    @PostMapping
    @Operation(operationId = "submitExperiment", summary = "Submit a matrix",
            description = "Expands the matrix (JSON or YAML, as its Content-Type says) into runs and queues them for "
                    + "the scheduler; the answer lists its warnings, as validate does. Every violation of the matrix, "
                    + "a point a connected host cannot run among them, is listed in one 400, and nothing is stored; so is "
                    + "a submit whose runs would pass qplab.limits.queued-runs or the account's "
                    + "qplab.limits.user-queued-runs (429). Needs an operator.",
            requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
                    description = "The matrix, as JSON or YAML.", content = {
                    @Content(mediaType = "application/json", schema = @Schema(implementation = MatrixBody.class)),
                    @Content(mediaType = "application/yaml", schema = @Schema(implementation = MatrixBody.class))}))
    @ApiResponse(responseCode = "201", description = "Queued: the new experiment, with its id.", headers = @Header(
            name = HttpHeaders.LOCATION, description = "The experiment's URL: /api/experiments/{id}",
            schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "429", ref = ErrorResponses.TOO_MANY_REQUESTS)
    Mono<ResponseEntity<Experiment>> submit(@RequestBody(required = false) byte[] body,
                                            @Parameter(hidden = true)
                                            @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType,
                                            java.security.Principal who) {
        return submissions.expand(body, contentType)
                .flatMap(matrix -> jdbc.call(() -> submissions.store(matrix, who.getName())))
                .doOnNext(created -> submissions.announce(created.id()))
                .map(created -> ResponseEntity.created(URI.create("/api/experiments/" + created.id())).body(created));
    }

    static final List<String> STATUSES = List.of("QUEUED", "RUNNING", "FINISHED", "FAILED", "CANCELLED");

    /** Newest first; status (repeatable or comma-separated) and name (case-insensitive substring) filter. */
    @GetMapping
    @Operation(operationId = "listExperiments", summary = "List experiments",
            description = "Every experiment, newest first, with how far its runs have got; filtered by status and "
                    + "name.")
    @ApiResponse(responseCode = "200", description = "The experiments, newest first.")
    Mono<List<Experiment>> list(@Parameter(description = "Only these statuses (QUEUED, RUNNING, FINISHED, FAILED, "
                                        + "CANCELLED; any case): repeat the parameter or separate them with commas.")
                                @RequestParam(required = false) List<String> status,
                                @Parameter(description = "Only names containing this text, ignoring case.")
                                @RequestParam(required = false) String name) {
        List<String> statuses = status == null ? List.of()
                : status.stream().map(String::trim).filter(s -> !s.isEmpty()).map(s -> s.toUpperCase(Locale.ROOT)).toList();
        List<Violation> problems = statuses.stream().filter(s -> !STATUSES.contains(s))
                .map(s -> new Violation("status", "must be one of " + STATUSES + ", got " + s)).toList();
        if (!problems.isEmpty()) {
            return Mono.error(new BadRequest("invalid filter", problems));
        }
        String text = name == null || name.isBlank() ? null : name.strip();
        return jdbc.call(() -> experiments.list(statuses, text));
    }

    /** What a matrix would expand to, without storing anything: 200 with the run count, or the 400 of a submit. */
    @PostMapping("/validate")
    @Operation(operationId = "validateMatrix", summary = "Check a matrix without submitting it",
            description = "Reads and expands the matrix exactly as a submit would, and stores nothing: 200 with its "
                    + "name, how many runs and distinct points it expands to, its warnings (a named host not "
                    + "connected, agents that cannot run points placed on any agent) and an estimate of how long its "
                    + "runs would take, or the 400 a submit would answer, listing every violation. Needs a viewer.",
            requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
                    description = "The matrix, as JSON or YAML.", content = {
                    @Content(mediaType = "application/json", schema = @Schema(implementation = MatrixBody.class)),
                    @Content(mediaType = "application/yaml", schema = @Schema(implementation = MatrixBody.class))}))
    @ApiResponse(responseCode = "200", description = "The matrix is valid: what it expands to.")
    Mono<MatrixCheck> validate(@RequestBody(required = false) byte[] body,
                               @Parameter(hidden = true)
                               @RequestHeader(value = HttpHeaders.CONTENT_TYPE, required = false) String contentType) {
        return submissions.expand(body, contentType)
                .flatMap(matrix -> jdbc.call(() -> MatrixCheck.of(matrix, submissions.estimate(matrix))));
    }

    @GetMapping("/{id}")
    @Operation(operationId = "getExperiment", summary = "One experiment",
            description = "The experiment: its status, its runs' counts, an estimate of the seconds left while it "
                    + "runs, and its matrix as submitted (with the seed of a random order).")
    @ApiResponse(responseCode = "200", description = "The experiment.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Experiment> get(@PathVariable long id) {
        return jdbc.call(() -> experiments.find(id).orElseThrow(() -> new NotFound("no experiment " + id)));
    }

    /** Queued runs are dropped; running ones are stopped by their agents and keep what they measured. */
    @PostMapping("/{id}/cancel")
    @Operation(operationId = "cancelExperiment", summary = "Cancel an experiment",
            description = "Drops its queued runs and tells the agents to stop its running ones, which keep what they "
                    + "measured. 409 once it has ended. Needs an operator.")
    @ApiResponse(responseCode = "200", description = "The experiment, CANCELLED.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Experiment> cancel(@PathVariable long id) {
        return jdbc.call(() -> experiments.cancel(id).orElseThrow(() -> new NotFound("no experiment " + id)))
                .doOnNext(running -> running.forEach(run -> java.util.stream.Stream.of(run.agentId(), run.serverAgentId())
                        .filter(java.util.Objects::nonNull).forEach(agentId -> agents.get(agentId)
                                .ifPresent(agent -> agent.send(new AgentMessage.CancelRun(run.runId()))))))
                .then(jdbc.call(() -> experiments.find(id).orElseThrow()));
    }

    /**
     * Deletes an ended experiment with its runs, their traces, intervals, histograms, summaries and frames,
     * and the baselines marked on them: 204; 404 when there is none; 409 while it is queued or running (cancel it
     * first) or one of its cancelled runs is still stopping. An admin may delete any; an operator only those it
     * submitted (403 otherwise).
     */
    @DeleteMapping("/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "deleteExperiment", summary = "Delete an ended experiment",
            description = "Deletes the experiment with its runs, their traces, intervals, histograms and summaries, "
                    + "and the baselines marked on them. 409 while it is queued or running (cancel it first) or one of "
                    + "its cancelled runs is still stopping. An admin may delete any experiment, an operator only "
                    + "those it submitted (403 otherwise).")
    @ApiResponse(responseCode = "204", description = "Deleted.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Void> delete(@PathVariable long id, org.springframework.security.core.Authentication who) {
        return jdbc.run(() -> {
            Experiment experiment = experiments.find(id).orElseThrow(() -> new NotFound("no experiment " + id));
            if (org.qplab.controller.security.Role.of(who.getAuthorities()) != org.qplab.controller.security.Role.ADMIN
                    && !who.getName().equals(experiment.submittedBy())) {
                throw new org.qplab.controller.api.Forbidden("only an admin or the account that submitted experiment " + id
                        + " (" + (experiment.submittedBy() == null ? "nobody recorded" : experiment.submittedBy())
                        + ") may delete it");
            }
            if (!experiments.delete(id)) {
                throw new NotFound("no experiment " + id);
            }
        });
    }

    @GetMapping("/{id}/runs")
    @Operation(operationId = "listExperimentRuns", summary = "An experiment's runs",
            description = "Every run of the experiment in matrix order, retried tries included (supersededBy names "
                    + "the run that replaced one): parameters, status, host, summary once finished.")
    @ApiResponse(responseCode = "200", description = "The runs, in matrix order.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<List<Run>> runs(@PathVariable long id) {
        return jdbc.call(() -> {
            experiments.find(id).orElseThrow(() -> new NotFound("no experiment " + id));
            return runs.byExperiment(id);
        });
    }
}
