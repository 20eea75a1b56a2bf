package org.qplab.controller.alerts;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.database.Jdbc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/alerts: what needs a person's eye now. */
@RestController
@Tag(name = ApiTags.HISTORY)
class AlertsController {

    private static final int LIMIT = 200;

    private final Jdbc jdbc;
    private final Alerts alerts;
    private final AlertWebhook webhook;

    AlertsController(Jdbc jdbc, Alerts alerts, AlertWebhook webhook) {
        this.jdbc = jdbc;
        this.alerts = alerts;
        this.webhook = webhook;
    }

    @GetMapping("/api/alerts/deliveries")
    @Operation(operationId = "listAlertDeliveries", summary = "The alerts posted to the webhook",
            description = "Each alert posted to qplab.alerts.webhook-url, newest first: DELIVERED, RETRYING, FAILED "
                    + "(after qplab.alerts.attempts tries) or PENDING, with the tries made and the last error. With "
                    + "schedule, only the alerts about that schedule: its stale alerts, and the failed expectations "
                    + "and change points of the experiments its occurrences submitted.")
    @ApiResponse(responseCode = "200", description = "The deliveries (at most 200).")
    Mono<List<AlertWebhook.Delivery>> deliveries(
            @Parameter(description = "Only the alerts about this schedule (GET /api/schedules/{id}); none for a "
                    + "schedule that does not exist.") @RequestParam(required = false) Long schedule) {
        return jdbc.call(() -> schedule == null ? webhook.deliveries(LIMIT) : webhook.deliveries(schedule, LIMIT));
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
