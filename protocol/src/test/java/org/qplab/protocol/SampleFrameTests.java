package org.qplab.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class SampleFrameTests {

    @Test
    void roundTripsEveryField() {
        var samples = List.of(
                new Sample(0, 0, 0, 10, 2_000, 4096, 1),
                new Sample(3, 2, 1L << 40, Long.MAX_VALUE - 1, Long.MAX_VALUE, 1L << 33, 1000));
        ByteBuffer encoded = SampleFrame.of(42, 7, samples).encode();

        assertThat(encoded.remaining()).isEqualTo(SampleFrame.HEADER_BYTES + 2 * Sample.BYTES);
        SampleFrame decoded = SampleFrame.decode(encoded);
        assertThat(decoded.runId()).isEqualTo(42);
        assertThat(decoded.seq()).isEqualTo(7);
        assertThat(decoded.samples()).containsExactlyElementsOf(samples);
    }

    @Test
    void encodesAsABigEndianViewSoTheJdkWebSocketMasksItIntact() {
        ByteBuffer encoded = SampleFrame.of(1, 0, List.of(new Sample(0, 0, 0, 1, 2, 3, 4))).encode();

        assertThat(encoded.order()).isEqualTo(java.nio.ByteOrder.BIG_ENDIAN);
        assertThat(encoded.get(0)).isEqualTo((byte) 'Q');
        assertThat(encoded.get(3)).isEqualTo((byte) 'S');
    }

    @Test
    void refusesTruncatedFrame() {
        ByteBuffer encoded = SampleFrame.of(1, 0, List.of(new Sample(0, 0, 0, 1, 2, 3, 4))).encode();
        ByteBuffer truncated = encoded.slice(0, encoded.remaining() - 8);

        assertThatThrownBy(() -> SampleFrame.decode(truncated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("says 1 records but carries 40 bytes");
    }

    @Test
    void refusesForeignFrame() {
        ByteBuffer junk = ByteBuffer.wrap(new byte[64]);

        assertThatThrownBy(() -> SampleFrame.decode(junk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a qplab sample frame");
    }
}
