package org.qplab.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** qplab.cluster.*: a heartbeat, a dead-after of at least two beats, a lease of at least a second, each refused naming it. */
class ClusterPropertiesTests {

    private static final Duration TWO_S = Duration.ofSeconds(2);
    private static final Duration TEN_S = Duration.ofSeconds(10);

    @Test
    void theLeaseMustLastASecondAtLeast() {
        assertThat(new ClusterProperties(null, TWO_S, TEN_S, Duration.ofSeconds(1)).lease()).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> new ClusterProperties(null, TWO_S, TEN_S, Duration.ofMillis(900)))
                .hasMessage("qplab.cluster.lease must be at least 1s (it is renewed every third of it, a round trip to "
                        + "PostgreSQL each), got PT0.9S");
        assertThatThrownBy(() -> new ClusterProperties(null, TWO_S, TEN_S, Duration.ZERO))
                .hasMessageStartingWith("qplab.cluster.lease must be at least 1s");
    }

    @Test
    void deadAfterMustSpanTwoHeartbeats() {
        assertThatThrownBy(() -> new ClusterProperties(null, TWO_S, Duration.ofSeconds(3), TEN_S))
                .hasMessage("qplab.cluster.dead-after must be at least twice qplab.cluster.heartbeat (PT2S), got PT3S");
        assertThatThrownBy(() -> new ClusterProperties(null, Duration.ZERO, TEN_S, TEN_S))
                .hasMessage("qplab.cluster.heartbeat must be positive, got PT0S");
    }
}
