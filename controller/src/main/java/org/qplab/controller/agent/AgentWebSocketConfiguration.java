package org.qplab.controller.agent;

import java.util.Map;
import org.qplab.protocol.IntervalFrame;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.server.support.WebSocketHandlerAdapter;
import org.springframework.web.reactive.socket.server.upgrade.ReactorNettyRequestUpgradeStrategy;
import reactor.netty.http.server.WebsocketServerSpec;

@Configuration(proxyBeanMethods = false)
class AgentWebSocketConfiguration {

    @Bean
    HandlerMapping agentWebSocketMapping(AgentGateway gateway) {
        return new SimpleUrlHandlerMapping(Map.of("/agent", gateway), -1);
    }

    /**
     * Frames are up to 1 MiB; Reactor Netty's default limit is 64 KiB. /agent is the only WebSocket: its
     * upgrade is refused to browsers ({@link AgentHandshake}) and runs on the connection's event loop
     * ({@link EventLoopUpgrade}: off it, an agent's hello could be lost).
     */
    @Bean
    WebSocketHandlerAdapter webSocketHandlerAdapter() {
        var spec = WebsocketServerSpec.builder().maxFramePayloadLength(IntervalFrame.MAX_BYTES);
        return new WebSocketHandlerAdapter(new AgentHandshake(new EventLoopUpgrade(new ReactorNettyRequestUpgradeStrategy(spec))));
    }
}
