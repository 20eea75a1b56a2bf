package org.qplab.controller.cluster;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.OffsetDateTime;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.database.Jdbc;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/controllers: the controllers on this database, as their rows and the lease say. */
@RestController
@Tag(name = ApiTags.CONTROLLERS)
class ControllersController {

    /** How many controllers the list shows: alive ones first, then the latest starts (each start is a row). */
    static final int LIMIT = 200;

    /** A controller as the API shows it. */
    record ControllerRow(@Schema(description = "The controller process: a new id at every start.") String id,
                         @Schema(description = "qplab.cluster.name, else host:port.") String name,
                         @Schema(description = "Where its API answers, as far as it knows.") String url,
                         OffsetDateTime startedAt,
                         @Schema(description = "Its latest heartbeat (every qplab.cluster.heartbeat).")
                         OffsetDateTime lastSeen,
                         @Schema(description = "It beat within qplab.cluster.dead-after and did not stop.")
                         boolean alive,
                         @Schema(description = "When it stopped cleanly; absent while it runs or after a crash.")
                         OffsetDateTime stoppedAt,
                         @Schema(description = "It holds the unexpired lease on the background jobs that run once "
                                 + "across controllers (recurring schedules, alert webhook posts, trace retention, "
                                 + "orphaned runs of controllers that are gone).")
                         boolean leader,
                         @Schema(description = "The agents connected to it now.") long agents,
                         @Schema(description = "It is the controller that answered this request.") boolean self) {}

    private final Jdbc jdbc;
    private final JdbcClient sql;
    private final ControllerNode node;

    ControllersController(Jdbc jdbc, JdbcClient sql, ControllerNode node) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.node = node;
    }

    @GetMapping("/api/controllers")
    @Operation(operationId = "listControllers", summary = "List the controllers on this database",
            description = "The controllers that share this PostgreSQL, alive ones first, then the latest starts (at "
                    + "most " + LIMIT + "; each start of a controller is a new id): when each started and last beat, "
                    + "whether it is alive (a beat within qplab.cluster.dead-after and no clean stop), whether it "
                    + "leads the background jobs (the holder of the unexpired lease: at most one), how many agents "
                    + "are connected to it, and which one answered.")
    @ApiResponse(responseCode = "200", description = "The controllers.")
    Mono<List<ControllerRow>> list() {
        return jdbc.call(this::controllers);
    }

    private List<ControllerRow> controllers() {
        return sql.sql("""
                        SELECT c.id, c.name, c.url, c.started_at, c.last_seen, c.id IN (%s) AS alive, c.stopped_at,
                               EXISTS (SELECT 1 FROM leader_lease l WHERE l.name = ? AND l.holder = c.id
                                       AND l.expires_at > now()) AS leader,
                               (SELECT count(*) FROM agent a WHERE a.connected AND a.controller_id = c.id) AS agents
                        FROM controller c ORDER BY alive DESC, c.started_at DESC, c.id LIMIT ?"""
                        .formatted(node.aliveSql()))
                .params(Leadership.BACKGROUND, LIMIT)
                .query((rs, i) -> new ControllerRow(rs.getString(1), rs.getString(2), rs.getString(3),
                        rs.getObject(4, OffsetDateTime.class), rs.getObject(5, OffsetDateTime.class), rs.getBoolean(6),
                        rs.getObject(7, OffsetDateTime.class), rs.getBoolean(8), rs.getLong(9),
                        node.id().equals(rs.getString(1))))
                .list();
    }
}
