package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.protocol.IntervalFrame;
import org.springframework.web.reactive.socket.CloseStatus;
import tools.jackson.databind.json.JsonMapper;

/** What the agents' WebSocket refuses, and how the agent learns why: a frame layout it cannot read. */
class AgentGatewayIntegrationTests extends ControllerIntegrationTest {

    @Test
    void anAgentOfAnEarlierReleaseIsRefusedAtHelloNamingTheFrameLayouts() throws Exception {
        // an agent from before interval statistics sends no frame layout: it would send v1 frames
        String hello = "{\"type\":\"hello\",\"agentId\":\"old-release\",\"token\":\"" + TOKEN
                + "\",\"facts\":{},\"knownRuns\":[]}";

        CloseStatus closed = talk(hello, null);

        assertThat(closed.getCode()).isEqualTo(LinkClose.FRAME_LAYOUT.code());
        assertThat(closed.getReason()).isEqualTo("frame layout v1 is not supported here (reads v2 and v3): run the "
                + "agent of the controller's release");
        assertThat(jdbc.sql("SELECT count(*) FROM agent WHERE id = 'old-release'").query(Long.class).single()).isZero();
    }

    @Test
    void aFrameOfAnotherLayoutIsRefusedAndNothingOfItIsStored() throws Exception {
        String hello = JsonMapper.builder().build().writeValueAsString(
                new AgentMessage.Hello("mixed-release", TOKEN, Map.of(), null, List.of()));
        ByteBuffer v1 = ByteBuffer.allocate(IntervalFrame.HEADER_BYTES + 48).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(IntervalFrame.MAGIC).putShort((short) 1).putShort((short) 0).putLong(1).putLong(0).putInt(1)
                .putInt(0).flip();
        long batches = jdbc.sql("SELECT count(*) FROM run_frame").query(Long.class).single();

        CloseStatus closed = talk(hello, v1);

        assertThat(closed.getCode()).isEqualTo(LinkClose.FRAME_LAYOUT.code());
        assertThat(closed.getReason()).startsWith("frame layout v1 is not supported here (reads v2 and v3)");
        assertThat(jdbc.sql("SELECT count(*) FROM run_frame").query(Long.class).single()).isEqualTo(batches);
    }

    /**
     * Sends hello (and the binary frame right after it: the gateway handles an agent's messages in order, so
     * the frame is read by a registered link), and returns how the controller closed the link.
     */
    private CloseStatus talk(String hello, ByteBuffer frame) throws Exception {
        try (RawAgent agent = RawAgent.connect(port)) {
            agent.sendRaw(hello);
            if (frame != null) {
                agent.sendRaw(frame);
            }
            return agent.awaitClose(Duration.ofSeconds(30));
        }
    }
}
