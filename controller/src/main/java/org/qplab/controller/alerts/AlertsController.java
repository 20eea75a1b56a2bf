package org.qplab.controller.alerts;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.database.Jdbc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/alerts: what needs a person's eye now. */
@RestController
@Tag(name = ApiTags.HISTORY)
class AlertsController {

    private final Jdbc jdbc;
    private final Alerts alerts;

    AlertsController(Jdbc jdbc, Alerts alerts) {
        this.jdbc = jdbc;
        this.alerts = alerts;
    }

    @GetMapping("/api/alerts")
    @Operation(operationId = "listAlerts", summary = "Alerts now",
            description = "Open change points, experiments of the last 24 hours whose runs failed an expect rule, and "
                    + "schedules stale past twice their period (no finished experiment since): the dashboard header's "
                    + "alerts, and the Prometheus metrics qplab_open_changes, qplab_expectation_failures_total and "
                    + "qplab_schedule_stale.")
    @ApiResponse(responseCode = "200", description = "The alerts.")
    Mono<Alerts.Now> alerts() {
        return jdbc.call(alerts::now);
    }
}
