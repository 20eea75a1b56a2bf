package org.qplab.controller.security;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Clients that come from an address of their own: all of 127.0.0.0/8 is this machine's loopback, so a test's
 * client can connect from 127.77.x.y. What one test's guessing costs an address (the login throttle counts per
 * address) then costs no other test, nor the other test classes, which all come from 127.0.0.1.
 */
final class Addresses {

    private static final AtomicInteger NEXT = new AtomicInteger();

    private Addresses() {
    }

    /** An address no other client of these tests has used. */
    static String fresh() {
        int n = NEXT.getAndIncrement();
        return "127.77." + (n / 250) + "." + (n % 250 + 1);
    }

    /** A client with no credentials, connecting from this address (a fresh connection per request). */
    static WebTestClient from(String address, int port) {
        HttpClient http = HttpClient.create(ConnectionProvider.newConnection())
                .bindAddress(() -> new InetSocketAddress(address, 0));
        return WebTestClient.bindToServer(new ReactorClientHttpConnector(http)).baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30)).build();
    }
}
