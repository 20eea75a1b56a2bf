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

/**
 * What the agents' WebSocket refuses, and how the agent learns why: a frame layout it cannot read. And how it keeps a
 * link alive: pings only while nothing else goes to the agent.
 */
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
     * An agent hears that its link is alive from anything the controller sends. While it streams, the acknowledgements
     * of its frames say it several times a second, and no ping is sent (at 1,000 agents that spared a write and a read
     * of each 1,000 times a second); once it is quiet, the pings come every second again.
     */
    @Test
    void aLinkIsPingedOnlyWhileNothingElseGoesToTheAgent() throws Exception {
        long run = RawAgent.storedRun(jdbc, "RUNNING", "pinged");
        try (RawAgent agent = RawAgent.connect(port)) {
            agent.send(new AgentMessage.Hello("pinged", TOKEN, Map.of("hostname", "pinged"), run, List.of(run), null));
            agent.await(AgentMessage.Welcome.class, Duration.ofSeconds(30));
            int before = agent.pings();
            long streamed = System.nanoTime();
            for (int seq = 0; seq < 30; seq++) { // 3 s of frames, each acknowledged
                agent.send(RawAgent.frame(run, seq));
                assertThat(agent.await(AgentMessage.BatchAck.class, Duration.ofSeconds(30)).seq()).isEqualTo(seq);
                Thread.sleep(100);
            }
            double seconds = (System.nanoTime() - streamed) / 1e9;
            int whileStreaming = agent.pings() - before;
            Thread.sleep(3_500);
            int whileQuiet = agent.pings() - before - whileStreaming;

            assertThat(whileStreaming).as("pings in %.1f s of acknowledged frames", seconds).isLessThanOrEqualTo(1);
            assertThat(whileQuiet).as("pings in 3.5 s with nothing else sent").isBetween(2, 4);
            assertThat(agent.isOpen()).isTrue();
        }
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
