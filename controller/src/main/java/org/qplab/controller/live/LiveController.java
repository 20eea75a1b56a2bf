package org.qplab.controller.live;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.run.Run;
import org.qplab.controller.run.RunRepository;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/**
 * GET /api/runs/{id}/live: server-sent events "status" (once, when the watch has begun), "progress"
 * (per stored frame, per thread) and one "end". A run that has already ended answers with its end at
 * once; a queued one waits for it.
 */
@RestController
@Tag(name = ApiTags.RUNS)
class LiveController {

    private final Jdbc jdbc;
    private final RunRepository runs;
    private final LiveRuns live;

    LiveController(Jdbc jdbc, RunRepository runs, LiveRuns live) {
        this.jdbc = jdbc;
        this.runs = runs;
        this.live = live;
    }

    @GetMapping(path = "/api/runs/{id}/live", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    @Operation(operationId = "followRun", summary = "Follow a run live (server-sent events)",
            description = "Server-sent events while the run goes on: a \"status\" when the watch has begun "
                    + "({runId, status}) and another when a queued run starts on its agent (status RUNNING), a \"progress\" per frame stored ({runId, seq, totalCycles, threads: "
                    + "[ThreadProgress]}: per thread and interval its cycles, bytes, time span and median, p99 and "
                    + "p99.9 cycle times in ns), then one \"end\" ({runId, status}) and the stream closes. A run that "
                    + "has already ended answers with its end at once; a queued one waits for it. A comment every 15 s "
                    + "keeps the connection alive.")
    @ApiResponse(responseCode = "200", description = "The event stream; each event's data is one JSON object.",
            content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Flux<ServerSentEvent<LiveEvent>> live(@PathVariable long id) {
        Flux<LiveEvent> events = live.watch(id); // subscribe before reading the status: no end can slip between
        return jdbc.call(() -> runs.find(id).orElseThrow(() -> new NotFound("no run " + id)))
                .flatMapMany(run -> {
                    if (ended(run)) {
                        live.ended(id, run.status()); // nothing more will come: release the watch
                        return Flux.<LiveEvent>just(new LiveEvent.End(id, run.status()));
                    }
                    return Flux.concat(Flux.just(new LiveEvent.Watching(id, run.status())), events);
                })
                .map(event -> ServerSentEvent.<LiveEvent>builder(event).event(name(event)).build())
                .mergeWith(Flux.interval(Duration.ofSeconds(15)).map(i -> ServerSentEvent.<LiveEvent>builder().comment("keep-alive").build()))
                .takeUntil(sse -> "end".equals(sse.event()));
    }

    private static String name(LiveEvent event) {
        if (event instanceof LiveEvent.Watching) {
            return "status";
        }
        return event instanceof LiveEvent.End ? "end" : "progress";
    }

    private static boolean ended(Run run) {
        return !run.status().equals("QUEUED") && !run.status().equals("RUNNING");
    }
}
