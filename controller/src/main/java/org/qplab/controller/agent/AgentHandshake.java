package org.qplab.controller.agent;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.server.RequestUpgradeStrategy;
import org.springframework.web.reactive.socket.server.support.HandshakeWebSocketService;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The WebSocket upgrade of /agent, refused before any agent message is read with 403 to a request with an Origin
 * header (browsers always send one, agents never do, so a web page cannot open an agent link). An address whose
 * hellos failed too often lately is not refused here: an agent with a token of its own still gets in from it
 * ({@link AgentAdmission}).
 */
class AgentHandshake extends HandshakeWebSocketService {

    private static final Logger log = LoggerFactory.getLogger(AgentHandshake.class);
    AgentHandshake(RequestUpgradeStrategy upgrade) {
        super(upgrade);
    }

    @Override
    public Mono<Void> handleRequest(ServerWebExchange exchange, WebSocketHandler handler) {
        String origin = exchange.getRequest().getHeaders().getOrigin();
        if (origin != null) {
            log.warn("refused a WebSocket upgrade of {} from {} with Origin {}: agents send none",
                    exchange.getRequest().getPath(), exchange.getRequest().getRemoteAddress(), origin);
            return refuse(exchange.getResponse(), HttpStatus.FORBIDDEN,
                    "agent links are not opened from web pages (the request has an Origin header)");
        }
        return super.handleRequest(exchange, handler);
    }

    private static Mono<Void> refuse(ServerHttpResponse response, HttpStatus status, String reason) {
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
        return response.writeWith(Mono.fromSupplier(
                () -> response.bufferFactory().wrap((reason + "\n").getBytes(StandardCharsets.UTF_8))));
    }
}
