package org.qplab.controller.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FingerprintTests {

    private static final Map<String, Object> HOST = Map.of("kernel", "6.1", "cpus", 2);

    @Test
    void aBandwidthRunStoredBeforeModeExistedIsLikeOneThatSaysModeBw() {
        String before = Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L), HOST);
        String now = Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L, "mode", "bw"), HOST);
        assertThat(now).isEqualTo(before);
    }

    @Test
    void aRunThatSaysBidirectionalFalseIsLikeOneStoredBeforeIt() {
        String before = Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L), HOST);
        assertThat(Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L, "bidirectional", false), HOST)).isEqualTo(before);
        assertThat(Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L, "bidirectional", true), HOST)).isNotEqualTo(before);
    }

    @Test
    void aLatencyRunIsUnlikeTheBandwidthRunOfTheSameParameters() {
        String bw = Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L, "mode", "bw"), HOST);
        String latency = Fingerprint.of(Map.of("provider", "tcp", "msg_size", 64L, "mode", "latency"), HOST);
        assertThat(latency).isNotEqualTo(bw);
    }

    @Test
    void theHostStillCounts() {
        Map<String, Object> params = Map.of("provider", "tcp", "mode", "latency");
        assertThat(Fingerprint.of(params, Map.of("kernel", "6.2", "cpus", 2))).isNotEqualTo(Fingerprint.of(params, HOST));
    }
}
