package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's WebSocket client against a server written from RFC 6455 here (loopback): what the server reads is
 * what the client sent, unmasked with the key on the wire; what the server sends, fragmented or not, arrives
 * whole. The controller's Reactor Netty server is its peer in every controller integration test.
 */
class BlockingWebSocketIntegrationTests {

    private ServerSocket server;
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final BlockingWebSocket.Listener listener = new BlockingWebSocket.Listener() {
        @Override
        public void onText(BlockingWebSocket ws, String text) {
            events.add("text:" + text);
        }

        @Override
        public void onPing(BlockingWebSocket ws) {
            events.add("ping");
        }

        @Override
        public void onClosed(BlockingWebSocket ws, int code, String reason, Throwable error) {
            events.add(error != null ? "failed:" + error.getMessage() : "closed:" + code + " " + reason);
        }
    };

    @BeforeEach
    void listen() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        server.setSoTimeout(10_000);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    @Test
    void acceptKeyIsTheOneOfRfc6455sExample() {
        assertThat(BlockingWebSocket.acceptFor("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    @Test
    void sendsMaskedMessagesOfEveryLengthEncodingAndReceivesFragmentedTextPingsAndTheClose() throws Exception {
        CompletableFuture<BlockingWebSocket> connecting = CompletableFuture.supplyAsync(this::connectUnchecked);
        BlockingWebSocket ws;
        try (Socket peer = server.accept()) {
            DataInputStream in = new DataInputStream(peer.getInputStream());
            DataOutputStream out = new DataOutputStream(peer.getOutputStream());
            String request = upgrade(peer);
            ws = connecting.get(10, TimeUnit.SECONDS);
            assertThat(request).startsWith("GET /agent?x=1 HTTP/1.1\r\n").contains("\r\nHost: 127.0.0.1:" + server.getLocalPort() + "\r\n");

            Random random = new Random(42);
            for (int n : new int[] {0, 5, 125, 126, 7_001, 65_535, 65_536, 1 << 20}) { // 7-bit, 16-bit and 64-bit lengths
                byte[] payload = new byte[n];
                random.nextBytes(payload);
                ws.sendBinary(ByteBuffer.wrap(payload));
                Frame f = readClientFrame(in);
                assertThat(f.opcode).as("binary, %d bytes", n).isEqualTo(0x2);
                assertThat(f.payload).as("%d bytes unmasked", n).isEqualTo(payload);
            }
            ws.sendText("{\"type\":\"hello\",\"é\":1}".getBytes(StandardCharsets.UTF_8));
            Frame text = readClientFrame(in);
            assertThat(text.opcode).isEqualTo(0x1);
            assertThat(new String(text.payload, StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"hello\",\"é\":1}");

            ws.startReading("test-reader");
            writeServerFrame(out, false, 0x1, "{\"type\":".getBytes(StandardCharsets.UTF_8));
            writeServerFrame(out, true, 0x9, new byte[] {7, 8}); // a ping between fragments (RFC 6455, 5.4)
            writeServerFrame(out, true, 0x0, "\"welcome\"}".getBytes(StandardCharsets.UTF_8));
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("ping");
            Frame pong = readClientFrame(in);
            assertThat(pong.opcode).isEqualTo(0xA);
            assertThat(pong.payload).containsExactly(7, 8);
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("text:{\"type\":\"welcome\"}");

            byte[] close = ByteBuffer.allocate(2 + 7).putShort((short) 4401).put("refused".getBytes(StandardCharsets.UTF_8)).array();
            writeServerFrame(out, true, 0x8, close);
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("closed:4401 refused");
            Frame echoed = readClientFrame(in);
            assertThat(echoed.opcode).isEqualTo(0x8);
            assertThat(ByteBuffer.wrap(echoed.payload).getShort()).isEqualTo((short) 4401);
            assertThat(in.read()).as("the client closed the connection").isEqualTo(-1);
        }
        assertThatThrownBy(() -> ws.sendText(new byte[0])).isInstanceOf(IOException.class);
        assertThat(events.poll(200, TimeUnit.MILLISECONDS)).as("closed reported once").isNull();
    }

    @Test
    void aServerThatDropsTheConnectionIsAFailureAndAbortEndsABlockedSend() throws Exception {
        CompletableFuture<BlockingWebSocket> connecting = CompletableFuture.supplyAsync(this::connectUnchecked);
        try (Socket peer = server.accept()) {
            upgrade(peer);
            BlockingWebSocket ws = connecting.get(10, TimeUnit.SECONDS);
            ws.startReading("test-reader");
            // nobody reads on the server side: a large enough send blocks until the link is aborted
            Thread sender = new Thread(() -> {
                try {
                    for (int i = 0; i < 64; i++) {
                        ws.sendBinary(ByteBuffer.allocate(1 << 20));
                    }
                    events.add("sent all");
                } catch (IOException e) {
                    events.add("send failed");
                }
            });
            sender.start();
            Thread.sleep(300);
            assertThat(sender.isAlive()).as("blocked on a full socket").isTrue();
            ws.abort();
            sender.join(10_000);
            assertThat(events).contains("send failed");
        }
        // the reader thread notices the aborted socket on its own: its report may come after the sender's
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Object closed = null;
        while (closed == null && System.nanoTime() < deadline) {
            closed = events.stream().filter(e -> e.toString().startsWith("failed:")).findFirst().orElse(null);
            Thread.sleep(10);
        }
        assertThat(closed).as("the reader reports the end (events: %s)", events).isNotNull();
    }

    @Test
    void anIpv6LiteralIsConnectedToAndNamedInBracketsInTheHostHeader() throws Exception {
        ServerSocket v6;
        try {
            v6 = new ServerSocket(0, 1, InetAddress.getByName("::1"));
        } catch (IOException e) {
            Assumptions.abort("no IPv6 loopback on this machine: " + e.getMessage());
            return;
        }
        try (v6) {
            v6.setSoTimeout(10_000);
            URI uri = URI.create("ws://[::1]:" + v6.getLocalPort() + "/agent");
            CompletableFuture<BlockingWebSocket> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return BlockingWebSocket.connect(uri, Duration.ofSeconds(10), listener);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (Socket peer = v6.accept()) {
                assertThat(upgrade(peer)).contains("\r\nHost: [::1]:" + v6.getLocalPort() + "\r\n");
                connecting.get(10, TimeUnit.SECONDS).abort();
            }
        }
    }

    @Test
    void aServerThatDoesNotUpgradeIsRefusedWithWhatItAnswered() throws Exception {
        Thread answer = new Thread(() -> {
            try (Socket peer = server.accept()) {
                readRequest(peer);
                peer.getOutputStream().write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException ignored) {
                // the assertion below says what went wrong
            }
        });
        answer.start();
        assertThatThrownBy(this::connect).isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP/1.1 404 Not Found").hasMessageContaining("/agent?x=1");
        answer.join(10_000);
    }

    @Test
    void aWrongAcceptKeyIsRefused() throws Exception {
        Thread answer = new Thread(() -> {
            try (Socket peer = server.accept()) {
                readRequest(peer);
                peer.getOutputStream().write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + BlockingWebSocket.acceptFor("another key") + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException ignored) {
                // the assertion below says what went wrong
            }
        });
        answer.start();
        assertThatThrownBy(this::connect).isInstanceOf(IOException.class).hasMessageContaining("Sec-WebSocket-Accept");
        answer.join(10_000);
    }

    @Test
    void wssChecksTheServersCertificateAndHostName(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=qplab test",
                "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0)
                .as("keytool: %s", new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isTrue();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(ks, "changeit".toCharArray());
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(keys.getKeyManagers(), null, null);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(ks);
        SSLContext clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, trust.getTrustManagers(), null);

        try (ServerSocket tls = serverTls.getServerSocketFactory().createServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            tls.setSoTimeout(10_000);
            int port = tls.getLocalPort();
            BlockingQueue<String> received = new LinkedBlockingQueue<>();
            Thread serve = new Thread(() -> {
                for (int i = 0; i < 3; i++) {
                    try (Socket peer = tls.accept()) {
                        upgrade(peer);
                        received.add(new String(readClientFrame(new DataInputStream(peer.getInputStream())).payload,
                                StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        received.add("server: " + e.getClass().getSimpleName());
                    }
                }
            });
            serve.start();

            BlockingWebSocket ws = BlockingWebSocket.connect(URI.create("wss://127.0.0.1:" + port + "/agent"),
                    Duration.ofSeconds(10), listener, clientTls.getSocketFactory());
            ws.sendText("over TLS".getBytes(StandardCharsets.UTF_8));
            assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("over TLS");
            ws.abort();

            assertThatThrownBy(() -> BlockingWebSocket.connect(URI.create("wss://127.0.0.1:" + port + "/agent"),
                    Duration.ofSeconds(10), listener)).as("the JDK's trust store does not know the test certificate")
                    .isInstanceOf(SSLHandshakeException.class);
            assertThat(received.poll(10, TimeUnit.SECONDS)).startsWith("server: ");
            assertThatThrownBy(() -> BlockingWebSocket.connect(URI.create("wss://localhost:" + port + "/agent"),
                    Duration.ofSeconds(10), listener, clientTls.getSocketFactory()))
                    .as("a trusted certificate for 127.0.0.1 does not name localhost")
                    .isInstanceOf(SSLHandshakeException.class).hasMessageContaining("localhost");
            serve.join(10_000);
        }
    }

    private BlockingWebSocket connect() throws IOException {
        return BlockingWebSocket.connect(URI.create("ws://127.0.0.1:" + server.getLocalPort() + "/agent?x=1"),
                Duration.ofSeconds(10), listener);
    }

    private BlockingWebSocket connectUnchecked() {
        try {
            return connect();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the client's upgrade request and answers 101 with the accept key RFC 6455 asks for. */
    private static String upgrade(Socket peer) throws IOException {
        String request = readRequest(peer);
        String key = request.lines().filter(l -> l.startsWith("Sec-WebSocket-Key: ")).findFirst().orElseThrow()
                .substring("Sec-WebSocket-Key: ".length());
        peer.getOutputStream().write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + BlockingWebSocket.acceptFor(key) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        return request;
    }

    private static String readRequest(Socket peer) throws IOException {
        StringBuilder request = new StringBuilder();
        // one byte at a time (no read-ahead into the frames that follow)
        BufferedReader reader = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII), 1);
        for (String line; (line = reader.readLine()) != null && !line.isEmpty(); ) {
            request.append(line).append("\r\n");
        }
        return request.toString();
    }

    private record Frame(int opcode, byte[] payload) {}

    /** A client frame: FIN set, masked (RFC 6455, 5.3), unmasked here with the key it carries. */
    private static Frame readClientFrame(DataInputStream in) throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        assertThat(b0 & 0x80).as("FIN").isNotZero();
        assertThat(b1 & 0x80).as("masked").isNotZero();
        long n = b1 & 0x7F;
        if (n == 126) {
            n = in.readUnsignedShort();
        } else if (n == 127) {
            n = in.readLong();
        }
        byte[] key = new byte[4];
        in.readFully(key);
        byte[] payload = new byte[(int) n];
        in.readFully(payload);
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= key[i % 4];
        }
        return new Frame(b0 & 0x0F, payload);
    }

    private static void writeServerFrame(DataOutputStream out, boolean fin, int opcode, byte[] payload) throws IOException {
        out.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            out.write(payload.length);
        } else {
            out.write(126);
            out.writeShort(payload.length);
        }
        out.write(payload);
        out.flush();
    }
}
