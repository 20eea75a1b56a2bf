package org.qplab.controller.api;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Keeps an HTTP/1.1 keep-alive connection reading after each response. Reactor Netty 1.3.7 reads on demand and can
 * leave a connection unread for good: when a browser sends its next request on a connection whose previous response
 * it has whole but whose bookkeeping has not ended yet, the request is queued as pipelined, answered, and the queue
 * then drains without anyone asking the socket for more (reactor/reactor-netty#4361, PR #4347). The browser's next
 * request on that connection then waits unanswered: a reloaded page never loaded one of its calls (seen as an account
 * page without its tokens for 20 s and more). The fixed Reactor Netty needs a newer Netty than this Spring Boot's.
 *
 * <p>Here each response's last part, once written, asks the connection for one more read (not a WebSocket
 * upgrade's: that connection is no longer HTTP). When a request is still
 * being handled, what that read brings is queued as a pipelined request, the way Reactor Netty does on its own; when
 * the connection is idle, the read waits for the client's next request, as it should.
 */
@Component
class KeepAliveReads implements NettyServerCustomizer {

    private static final String NAME = "qplab.keepAliveReads";

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remote) -> {
            ChannelPipeline pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null) {
                pipeline.addBefore(NettyPipeline.HttpTrafficHandler, NAME, new ReadAfterResponse());
            }
        });
    }

    /** After a response's last part is written, one read on the connection, if it is still open and kept alive. */
    static final class ReadAfterResponse extends ChannelOutboundHandlerAdapter {

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            // not after 101 Switching Protocols: the connection becomes a WebSocket (an agent's link), whose frames
            // are read as its handlers ask, and a read while the handlers change over could take its first frame
            if (msg instanceof LastHttpContent && !(msg instanceof HttpResponse response
                    && response.status().equals(HttpResponseStatus.SWITCHING_PROTOCOLS))) {
                Channel channel = ctx.channel();
                promise = promise.unvoid();
                promise.addListener(written -> {
                    if (written.isSuccess() && channel.isActive() && !channel.config().isAutoRead()
                            && channel.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                        channel.eventLoop().execute(channel::read);
                    }
                });
            }
            ctx.write(msg, promise);
        }
    }
}
