package org.qplab.controller.live;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.experiment.Experiment;
import org.qplab.controller.experiment.ExperimentRepository;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * GET /api/experiments/{id}/live: server-sent events "experiment" (the experiment as GET /api/experiments/{id} answers
 * it) at once and again whenever its status or the count of its runs in any state changes, then one "end" once the
 * experiment and every one of its runs have ended. A run starting or ending on this controller is seen at once; any
 * other change (a cancel, a run queued again, another controller's work) within {@link #CHECK}.
 */
@RestController
@Tag(name = ApiTags.EXPERIMENTS)
class ExperimentLiveController {

    /** How often a watched experiment is read again even when no run started or ended here. */
    static final Duration CHECK = Duration.ofSeconds(1);

    private final Jdbc jdbc;
    private final ExperimentRepository experiments;
    private final LiveRuns live;

    ExperimentLiveController(Jdbc jdbc, ExperimentRepository experiments, LiveRuns live) {
        this.jdbc = jdbc;
        this.experiments = experiments;
        this.live = live;
    }

    @GetMapping(path = "/api/experiments/{id}/live", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    @Operation(operationId = "followExperiment", summary = "Follow an experiment live (server-sent events)",
            description = "Server-sent events: an \"experiment\" (the Experiment, as GET /api/experiments/{id} answers "
                    + "it) at once and whenever its status or its runs' counts (running, done, failed, retried) change, "
                    + "then one \"end\" (the Experiment as it ended) once the experiment and all of its runs have ended, "
                    + "and the stream closes. An experiment that has already ended answers with its end at once. A "
                    + "change shows within 1 s; a comment every 15 s keeps the connection alive. For a run's intervals "
                    + "follow the run (GET /api/runs/{id}/live).")
    @ApiResponse(responseCode = "200", description = "The event stream; each event's data is one JSON object.",
            content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Flux<ServerSentEvent<Experiment>> live(@PathVariable long id) {
        Flux<Long> changes = Flux.merge(live.statusChanges(), Flux.interval(CHECK, CHECK)).onBackpressureLatest();
        return read(id)
                .flatMapMany(first -> ended(first) ? Flux.just(first) : Flux.concat(Flux.just(first),
                        changes.concatMap(change -> read(id), 1)))
                .distinctUntilChanged(ExperimentLiveController::state)
                .map(e -> ServerSentEvent.<Experiment>builder(e).event(ended(e) ? "end" : "experiment").build())
                .mergeWith(Flux.interval(Duration.ofSeconds(15))
                        .map(i -> ServerSentEvent.<Experiment>builder().comment("keep-alive").build()))
                .takeUntil(sse -> "end".equals(sse.event()));
    }

    private Mono<Experiment> read(long id) {
        return jdbc.call(() -> experiments.find(id).orElseThrow(() -> new NotFound("no experiment " + id)));
    }

    /** What a watcher is told about when it changes (not the estimate of the time left, which moves every second). */
    private static List<Object> state(Experiment e) {
        return List.of(e.status(), e.runsTotal(), e.runsDone(), e.runsFailed(), e.runsRunning(), e.runsRetried(),
                e.agents());
    }

    /** The experiment and every one of its runs ended: a cancelled experiment's running runs end after it does. */
    static boolean ended(Experiment e) {
        return !List.of("QUEUED", "RUNNING").contains(e.status()) && e.runsRunning() == 0;
    }
}
