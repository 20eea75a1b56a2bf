package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PerftestResultTests {

    @Test
    void readsTheResultRowAndTheSettingsOfAnIbSendBwReport() throws IOException {
        PerftestResult result = PerftestResult.parse(resource("ib_send_bw-client.txt"));

        assertThat(result.bytes()).isEqualTo(65536);
        assertThat(result.iterations()).isEqualTo(200);
        assertThat(result.bwPeakMBps()).isEqualTo(7.18);
        assertThat(result.bwAverageMBps()).isEqualTo(5.61);
        assertThat(result.msgRateMpps()).isEqualTo(0.000090);
        assertThat(result.setting("Connection type")).isEqualTo("RC");
        assertThat(result.setting("Device")).isEqualTo("rxe0");
        assertThat(result.setting("GID index")).isEqualTo("1");
        assertThat(result.setting("Mtu")).isEqualTo("1024[B]");
    }

    @Test
    void refusesOutputWithoutAResultRow() {
        assertThatThrownBy(() -> PerftestResult.parse("Error opening XRC domain\nCouldn't create XRC resources\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no perftest result header");
    }

    @Test
    void namesTheSettingsItHasWhenAskedForAMissingOne() throws IOException {
        PerftestResult result = PerftestResult.parse(resource("ib_send_bw-client.txt"));

        assertThatThrownBy(() -> result.setting("Atomic type"))
                .hasMessageContaining("no 'Atomic type'").hasMessageContaining("Connection type");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = PerftestResultTests.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
