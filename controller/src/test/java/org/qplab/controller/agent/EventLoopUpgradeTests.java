package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.socket.server.RequestUpgradeStrategy;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The agents' upgrade runs on the connection's event loop whatever thread asks for it (bench/ingest lost about one
 * hello in 300-1000 when it ran on boundedElastic, where Spring Security's CSRF filter leaves every request).
 */
class EventLoopUpgradeTests {

    private final EventLoop loop = new DefaultEventLoop();
    private final ServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/agent"));

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void anUpgradeAskedForOffTheEventLoopRunsOnIt() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        RequestUpgradeStrategy delegate = (exchange, handler, protocol, info) -> Mono.fromRunnable(
                () -> ranOn.set(Thread.currentThread()));
        new EventLoopUpgrade(delegate, e -> loop).upgrade(exchange, session -> Mono.empty(), null, () -> null)
                .block(Duration.ofSeconds(10));
        assertThat(ranOn.get()).isNotSameAs(Thread.currentThread());
        assertThat(loop.inEventLoop(ranOn.get())).as("the delegate ran on the connection's event loop").isTrue();
    }

    @Test
    void anUpgradeOnTheEventLoopOrOfNoConnectionRunsWhereItIsAsked() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        RequestUpgradeStrategy delegate = (exchange, handler, protocol, info) -> Mono.fromRunnable(
                () -> ranOn.set(Thread.currentThread()));
        AtomicReference<Thread> askedOn = new AtomicReference<>();
        loop.submit(() -> {
            askedOn.set(Thread.currentThread());
            new EventLoopUpgrade(delegate, e -> loop).upgrade(exchange, session -> Mono.empty(), null, () -> null)
                    .subscribe();
        }).get();
        assertThat(ranOn.get()).isSameAs(askedOn.get());

        new EventLoopUpgrade(delegate).upgrade(exchange, session -> Mono.empty(), null, () -> null).block(Duration.ofSeconds(10));
        assertThat(ranOn.get()).as("a mock request has no connection").isSameAs(Thread.currentThread());
    }
}
