package org.qplab.controller.agent;

import io.netty.channel.EventLoop;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.reactive.socket.HandshakeInfo;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.server.RequestUpgradeStrategy;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;

/**
 * Runs the WebSocket upgrade on the connection's own event loop, whichever thread the request's filters ended on.
 *
 * <p>Reactor Netty writes the 101 and only then, in a listener of that write, binds the connection to its WebSocket
 * handling; until then a frame that is read goes to the finished HTTP request and is dropped ("dropping frame" in
 * reactor.netty.channel.FluxReceive's debug log). On the event loop the listener runs as soon as the write is done,
 * before the loop reads again. Off it (the security filters leave the event loop: Spring Security's CSRF filter makes a
 * token for every request that brings none, an agent's upgrade included, on boundedElastic:
 * CookieServerCsrfTokenRepository.generateToken), the write runs as a task on the event loop and the listener, added from
 * the other thread after that task has already finished, becomes one more task: when the other thread was preempted
 * in between, the loop could read the agent's hello, sent the moment the 101 arrived, before that task, and lose it.
 * bench/ingest saw it on a busy machine: about 1 agent in 300-1000 never registered ("no hello within 10000 ms", or
 * "the first message must be hello" when its heartbeat came before the timeout); see reactor/reactor-netty#1089 for
 * the same race on the event loop, fixed there.
 */
final class EventLoopUpgrade implements RequestUpgradeStrategy {

    private final RequestUpgradeStrategy delegate;
    private final Function<ServerWebExchange, EventLoop> eventLoops;

    EventLoopUpgrade(RequestUpgradeStrategy delegate) {
        this(delegate, EventLoopUpgrade::eventLoop);
    }

    /** With the given way to find a request's event loop (null: none, upgraded where it is). */
    EventLoopUpgrade(RequestUpgradeStrategy delegate, Function<ServerWebExchange, EventLoop> eventLoops) {
        this.delegate = delegate;
        this.eventLoops = eventLoops;
    }

    @Override
    public Mono<Void> upgrade(ServerWebExchange exchange, WebSocketHandler handler, String subProtocol,
                              Supplier<HandshakeInfo> handshakeInfoFactory) {
        EventLoop loop = eventLoops.apply(exchange);
        Mono<Void> upgrade = Mono.defer(() -> delegate.upgrade(exchange, handler, subProtocol, handshakeInfoFactory));
        return loop == null || loop.inEventLoop() ? upgrade : upgrade.subscribeOn(Schedulers.fromExecutor(loop));
    }

    /** The event loop of the request's connection; null when it is not served by Reactor Netty. */
    static EventLoop eventLoop(ServerWebExchange exchange) {
        Object request;
        try {
            request = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
        } catch (IllegalArgumentException | IllegalStateException notServed) { // a request of no server (a mock)
            return null;
        }
        return request instanceof Connection connection ? connection.channel().eventLoop() : null;
    }
}
