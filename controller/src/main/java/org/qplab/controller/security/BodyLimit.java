package org.qplab.controller.security;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.ObjectMapper;

/**
 * Bodies over spring.codec.max-in-memory-size are 413 on every path, before anything else looks at the request
 * (the login form, read by Spring Security, included): a Content-Length over the limit is refused unread; a body
 * without one (chunked) fails where it crosses the limit, whoever is reading it.
 */
@Component
class BodyLimit implements WebFilter, Ordered {

    /** The body crossed the limit while being read. */
    static final class TooLarge extends DataBufferLimitException {
        TooLarge(long max) {
            super("the request body is larger than " + max + " bytes");
        }
    }

    private final long max;
    private final ObjectMapper json;

    BodyLimit(@Value("${spring.codec.max-in-memory-size:256KB}") DataSize max, ObjectMapper json) {
        this.max = max.toBytes();
        this.json = json;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE; // before Spring Security's chain (-100)
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        long length = exchange.getRequest().getHeaders().getContentLength();
        if (length > max) {
            return tooLarge(exchange);
        }
        if (length >= 0) {
            return chain.filter(exchange);
        }
        AtomicLong read = new AtomicLong();
        var counted = new ServerHttpRequestDecorator(exchange.getRequest()) {
            @Override
            public Flux<DataBuffer> getBody() {
                return super.getBody().handle((buffer, sink) -> {
                    if (read.addAndGet(buffer.readableByteCount()) > max) {
                        org.springframework.core.io.buffer.DataBufferUtils.release(buffer);
                        sink.error(new TooLarge(max));
                    } else {
                        sink.next(buffer);
                    }
                });
            }
        };
        return chain.filter(exchange.mutate().request(counted).build())
                .onErrorResume(e -> isTooLarge(e) && !exchange.getResponse().isCommitted(), e -> tooLarge(exchange));
    }

    private Mono<Void> tooLarge(ServerWebExchange exchange) {
        return SecurityConfiguration.write(json, exchange, HttpStatus.CONTENT_TOO_LARGE, "the request body is larger than "
                + max + " bytes, the most this controller reads (spring.codec.max-in-memory-size)");
    }

    private static boolean isTooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DataBufferLimitException
                    || t instanceof org.springframework.web.server.ContentTooLargeException) {
                return true;
            }
        }
        return false;
    }
}
