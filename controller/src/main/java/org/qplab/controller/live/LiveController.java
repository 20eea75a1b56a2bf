package org.qplab.controller.live;

import java.time.Duration;
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
