package org.qplab.controller.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A webhook URL that is not http(s) with a host is refused at start, saying what would do. */
class AlertPropertiesTests {

    @Test
    void onlyHttpAndHttpsUrlsWithAHostAreTaken() {
        assertThat(new AlertProperties("", "", 5, Duration.ofSeconds(2)).webhookUrl()).isEmpty();
        assertThat(new AlertProperties("https://alerts.example:9000/qplab", "s", 5, Duration.ofSeconds(2)).webhookUrl())
                .isEqualTo("https://alerts.example:9000/qplab");
        assertThatThrownBy(() -> new AlertProperties("ftp://alerts.example/x", "", 5, Duration.ofSeconds(2)))
                .hasMessage("qplab.alerts.webhook-url ftp://alerts.example/x must be an http or https URL with a host "
                        + "(http://alerts.example:9000/qplab)");
        assertThatThrownBy(() -> new AlertProperties("http:/nohost", "", 5, Duration.ofSeconds(2)))
                .hasMessageContaining("must be an http or https URL with a host");
        assertThatThrownBy(() -> new AlertProperties("http://a b", "", 5, Duration.ofSeconds(2)))
                .hasMessageStartingWith("qplab.alerts.webhook-url http://a b is not a URL");
        assertThatThrownBy(() -> new AlertProperties("", "", 0, Duration.ofSeconds(2)))
                .hasMessage("qplab.alerts.attempts must be 1..20, got 0");
    }
}
