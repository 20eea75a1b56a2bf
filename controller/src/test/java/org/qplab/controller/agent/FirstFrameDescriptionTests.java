package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.web.reactive.socket.WebSocketMessage;

/** What the log says of a link's first frame when the link is refused before its hello: type, length, first bytes. */
class FirstFrameDescriptionTests {

    @Test
    void aTextFrameShowsItsStartWithAnyTokenBlankedOutAndIsNotConsumed() {
        String text = "{\"type\":\"heartbeat\",\"runId\":null,\"spooled\":0,\"spoolBytes\":0}";
        WebSocketMessage message = text(text);
        assertThat(AgentGateway.describe(message)).isEqualTo("text, " + text.length() + " bytes: " + text);
        assertThat(message.getPayloadAsText()).as("still all there for the decoder").isEqualTo(text);

        String hello = "{\"type\":\"hello\",\"agentId\":\"a\",\"token\":\"secret-0123456789\",\"facts\":{\"hostname\":\"a-very-long-host-name\"}}";
        assertThat(AgentGateway.describe(text(hello)))
                .isEqualTo("text, " + hello.length() + " bytes: {\"type\":\"hello\",\"agentId\":\"a\",\"token\":\"…\","
                        + "\"facts\":{\"hostname\":\"a…");
    }

    @Test
    void aBinaryFrameShowsItsFirst16BytesInHex() {
        byte[] frame = new byte[40];
        for (int i = 0; i < frame.length; i++) {
            frame[i] = (byte) (0xF0 + i);
        }
        assertThat(AgentGateway.describe(new WebSocketMessage(WebSocketMessage.Type.BINARY,
                DefaultDataBufferFactory.sharedInstance.wrap(frame))))
                .isEqualTo("binary, 40 bytes: f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff…");
    }

    private static WebSocketMessage text(String text) {
        return new WebSocketMessage(WebSocketMessage.Type.TEXT,
                DefaultDataBufferFactory.sharedInstance.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }
}
