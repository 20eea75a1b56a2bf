package org.qplab.controller.agent;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.server.RequestUpgradeStrategy;
import org.springframework.web.reactive.socket.server.support.HandshakeWebSocketService;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The WebSocket upgrade of /agent, refused before any agent message is read: 403 to a request with an Origin
 * header (browsers always send one, agents never do, so a web page cannot open an agent link), and 429 to an
 * address whose hellos failed too often lately ({@link HelloThrottle}).
 */
class AgentHandshake extends HandshakeWebSocketService {

    private static final Logger log = LoggerFactory.getLogger(AgentHandshake.class);
    private final HelloThrottle throttle;

    AgentHandshake(RequestUpgradeStrategy upgrade, HelloThrottle throttle) {
        super(upgrade);
        this.throttle = throttle;
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
        Duration blocked = throttle.blocked(exchange.getRequest().getRemoteAddress());
        if (!blocked.isZero()) {
            long seconds = Math.max(1, (blocked.toMillis() + 999) / 1000);
            exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, String.valueOf(seconds));
            return refuse(exchange.getResponse(), HttpStatus.TOO_MANY_REQUESTS,
                    "too many failed agent hellos from this address; try again in " + seconds + " s");
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
