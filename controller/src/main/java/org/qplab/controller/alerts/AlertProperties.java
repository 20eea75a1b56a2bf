package org.qplab.controller.alerts;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.alerts.*
 *
 * @param webhookUrl    where each new alert is POSTed as JSON (http or https; empty: no webhook)
 * @param webhookSecret the key of the HMAC-SHA256 signature of each body, sent as X-Qplab-Signature: sha256=HEX
 *                      (empty: unsigned)
 * @param attempts      how many times a delivery is tried before it is kept as failed
 * @param backoff       the wait before the second try; doubled before each next one
 */
@ConfigurationProperties("qplab.alerts")
public record AlertProperties(@DefaultValue("") String webhookUrl, @DefaultValue("") String webhookSecret,
                              @DefaultValue("5") int attempts, @DefaultValue("2s") Duration backoff) {

    public AlertProperties {
        if (!webhookUrl.isBlank()) {
            URI uri;
            try {
                uri = URI.create(webhookUrl.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("qplab.alerts.webhook-url " + webhookUrl + " is not a URL: "
                        + e.getMessage());
            }
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("qplab.alerts.webhook-url " + webhookUrl + " must be an http or "
                        + "https URL with a host (http://alerts.example:9000/qplab)");
            }
        }
        if (attempts < 1 || attempts > 20) {
            throw new IllegalArgumentException("qplab.alerts.attempts must be 1..20, got " + attempts);
        }
    }
}
