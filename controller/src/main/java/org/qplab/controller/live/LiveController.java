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
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * GET /api/runs/{id}/live: server-sent events "status" (once, when the watch has begun, and when a queued run
 * starts), "progress" (per stored frame, per thread) and one "end". A run that has already ended answers with its
 * end at once; a queued one waits for it.
 *
 * <p>Several controllers may share one database, each storing the frames of its own agents, and an agent may fail over
 * from one to another mid-run: the controller a browser asks need not be the one storing the run. So every watch hears
 * two sources and shows each frame and status once, whichever told first ({@link RunWatch}, by frame seq): this
 * controller's ingest ({@link LiveRuns}: at once, for what it stores and sets), and the database, read every
 * {@link #POLL} while the watch lasts ({@link StoredRuns}: the run's status, and the frames stored since with their
 * stored intervals, for what another controller stores and sets, or what this one stored while the watch was being
 * set up). Before the end is shown the frames are read once more, so none stored before the end is skipped.
 *
 * <p>Polling, not LISTEN/NOTIFY: a notification would cost every stored frame a pg_notify (watched or not) and each
 * controller a connection kept out of the pool for LISTEN, with polls still needed after that connection breaks;
 * a poll costs only watched runs, two primary-key range reads when nothing is new, and stops with its watch. Asking
 * whether the run's agent is connected here instead would miss an agent that fails over mid-run.
 */
@RestController
@Tag(name = ApiTags.RUNS)
class LiveController {

    /** How often a watch reads its run from the database. */
    static final Duration POLL = Duration.ofMillis(500);

    private final Jdbc jdbc;
    private final StoredRuns stored;
    private final LiveRuns live;

    LiveController(Jdbc jdbc, StoredRuns stored, LiveRuns live) {
        this.jdbc = jdbc;
        this.stored = stored;
        this.live = live;
    }

    @GetMapping(path = "/api/runs/{id}/live", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    @Operation(operationId = "followRun", summary = "Follow a run live (server-sent events)",
            description = "Server-sent events while the run goes on: a \"status\" when the watch has begun "
                    + "({runId, status}) and another when a queued run starts on its agent (status RUNNING), a \"progress\" per frame stored ({runId, seq, totalCycles, threads: "
                    + "[ThreadProgress]}: totalCycles the run's cycles stored so far; per thread and interval its cycles, bytes, time span and median, p99 and "
                    + "p99.9 cycle times in ns), then one \"end\" ({runId, status}) and the stream closes. A run that "
                    + "has already ended answers with its end at once; a queued one waits for it. Any controller "
                    + "sharing the database answers, whichever stores the run's frames: on another one a frame or "
                    + "status shows within 0.5 s. A comment every 15 s keeps the connection alive.")
    @ApiResponse(responseCode = "200", description = "The event stream; each event's data is one JSON object.",
            content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Flux<ServerSentEvent<LiveEvent>> live(@PathVariable long id) {
        Flux<RunSignal> here = live.watch(id); // what is stored here before it is subscribed, the database tells
        return jdbc.call(() -> stored.begin(id).orElseThrow(() -> new NotFound("no run " + id)))
                .flatMapMany(watch -> {
                    if (new RunSignal.Status(watch.status()).ended()) {
                        return Flux.<LiveEvent>just(new LiveEvent.End(id, watch.status()));
                    }
                    Flux<RunSignal> polled = Flux.interval(POLL, POLL).onBackpressureDrop()
                            .concatMap(tick -> jdbc.call(() -> stored.poll(watch)), 1)
                            .flatMapIterable(signals -> signals);
                    Flux<LiveEvent> events = Flux.merge(here, polled)
                            .concatMap(signal -> signal instanceof RunSignal.Status s && s.ended()
                                    ? jdbc.call(() -> stored.frames(watch)).flatMapIterable(frames -> frames)
                                            .cast(RunSignal.class).concatWith(Mono.just(signal))
                                    : Mono.just(signal))
                            .handle((signal, sink) -> watch.show(signal).ifPresent(sink::next));
                    return Flux.concat(Flux.just(new LiveEvent.Watching(id, watch.status())), events);
                })
                .map(event -> ServerSentEvent.<LiveEvent>builder(event).event(name(event)).build())
                .mergeWith(Flux.interval(Duration.ofSeconds(15)).map(i -> ServerSentEvent.<LiveEvent>builder().comment("keep-alive").build()))
                .takeUntil(sse -> "end".equals(sse.event()))
                .doFinally(signal -> live.release(id));
    }

    private static String name(LiveEvent event) {
        if (event instanceof LiveEvent.Watching) {
            return "status";
        }
        return event instanceof LiveEvent.End ? "end" : "progress";
    }
}
