package org.qplab.agent;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A WebSocket client (RFC 6455) on a plain blocking socket: the sending thread writes its frame straight to the
 * socket, one reader thread delivers what arrives. The agent's link needs no more: text and binary messages
 * out, text messages in, ping and pong, close. It replaces the JDK's java.net.http WebSocket, which hands every
 * message between its selector and worker threads: with 50 agents on one 2-core machine those two threads
 * used 0.4 of a core for 500 small frames a second (0.8 ms of CPU per frame, thread CPU times in bench/ingest),
 * more than the engines' own sender threads.
 *
 * <p>The reader never waits for the writer: a ping is answered at once if no message is being written, else
 * right after that message, by the writing thread (a link whose controller holds back reading would otherwise
 * stop delivering what arrives, and look dead).
 */
final class BlockingWebSocket {

    /** What arrives, on the reader thread. */
    interface Listener {
        void onText(BlockingWebSocket ws, String text);

        /** A ping came (its pong is sent or queued). */
        void onPing(BlockingWebSocket ws);

        /** The link ended: the server's close (code and reason, error null) or a failure (code -1). Called once. */
        void onClosed(BlockingWebSocket ws, int code, String reason, Throwable error);
    }

    static final int MAX_MESSAGE_BYTES = 16 << 20;
    private static final String ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final int OP_CONTINUATION = 0x0;
    private static final int OP_TEXT = 0x1;
    private static final int OP_BINARY = 0x2;
    private static final int OP_CLOSE = 0x8;
    private static final int OP_PING = 0x9;
    private static final int OP_PONG = 0xA;

    private final Socket raw;
    private final OutputStream out;
    private final DataInputStream in;
    private final Listener listener;
    private final ReentrantLock writing = new ReentrantLock();
    /** Guarded by writing: reused for each frame (header, then the masked payload). */
    private byte[] scratch = new byte[64 * 1024];
    private volatile byte[] pendingPong;
    private volatile boolean closed;

    private BlockingWebSocket(Socket raw, Socket socket, InputStream in, Listener listener) throws IOException {
        this.raw = raw;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(in);
        this.listener = listener;
    }

    /**
     * Connects and completes the opening handshake (ws:// or wss://, the JDK's default trust store and host name
     * check); the reader starts with {@link #startReading}. Throws with what the server answered when it does not
     * upgrade.
     */
    static BlockingWebSocket connect(URI uri, Duration timeout, Listener listener) throws IOException {
        return connect(uri, timeout, listener, null);
    }

    /**
     * The same with the given TLS socket factory for wss:// (its trust decides which servers are believed); null:
     * the JDK's default, loaded only for a wss:// URL.
     */
    static BlockingWebSocket connect(URI uri, Duration timeout, Listener listener, SSLSocketFactory tlsFactory)
            throws IOException {
        boolean tls = "wss".equalsIgnoreCase(uri.getScheme());
        if (!tls && !"ws".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("not a ws:// or wss:// URL: " + uri);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("no host in " + uri);
        }
        String hostHeader = uri.getHost(); // an IPv6 literal keeps its brackets here
        String host = hostHeader.startsWith("[") ? hostHeader.substring(1, hostHeader.length() - 1) : hostHeader;
        int port = uri.getPort() != -1 ? uri.getPort() : tls ? 443 : 80;
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        Socket raw = new Socket();
        try {
            raw.connect(new InetSocketAddress(host, port), timeoutMs);
            raw.setTcpNoDelay(true);
            raw.setSoTimeout(timeoutMs); // the handshake only
            Socket socket = raw;
            if (tls) {
                SSLSocketFactory factory = tlsFactory != null ? tlsFactory : (SSLSocketFactory) SSLSocketFactory.getDefault();
                SSLSocket ssl = (SSLSocket) factory.createSocket(raw, host, port, true);
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                ssl.setSSLParameters(parameters);
                ssl.startHandshake();
                socket = ssl;
            }
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            handshake(uri, hostHeader, port, tls, socket.getOutputStream(), in);
            raw.setSoTimeout(0);
            return new BlockingWebSocket(raw, socket, in, listener);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    private static void handshake(URI uri, String hostHeader, int port, boolean tls, OutputStream out, InputStream in)
            throws IOException {
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        boolean defaultPort = port == (tls ? 443 : 80);
        String request = "GET " + path + " HTTP/1.1\r\n"
                + "Host: " + hostHeader + (defaultPort ? "" : ":" + port) + "\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String[] lines = readHead(in).split("\r\n");
        String status = lines[0];
        if (!status.startsWith("HTTP/1.1 101")) {
            throw new IOException("the server answered \"" + status + "\" to the WebSocket upgrade of " + uri);
        }
        String accept = null;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0 && lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("sec-websocket-accept")) {
                accept = lines[i].substring(colon + 1).trim();
            }
        }
        if (!acceptFor(key).equals(accept)) {
            throw new IOException("the server's Sec-WebSocket-Accept for " + uri + " is " + accept + ", expected " + acceptFor(key));
        }
    }

    /** The response's status line and headers, up to the empty line. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0; // of "\r\n\r\n"
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the server closed the connection during the WebSocket upgrade");
            }
            if (head.size() > 16 * 1024) {
                throw new IOException("the server's answer to the WebSocket upgrade is longer than 16 KiB");
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    static String acceptFor(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + ACCEPT_GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The link's local address and port: the remote the server's log names this link by. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) raw.getLocalSocketAddress();
    }

    /** Starts the reader thread, which calls the listener until the link ends. */
    void startReading(String threadName) {
        Thread t = new Thread(this::readLoop, threadName);
        t.setDaemon(true);
        t.start();
    }

    /** Sends one whole text message; blocks until the socket took it. */
    void sendText(byte[] utf8) throws IOException {
        send(OP_TEXT, ByteBuffer.wrap(utf8));
    }

    /** Sends one whole binary message (the buffer's remaining bytes); blocks until the socket took it. */
    void sendBinary(ByteBuffer payload) throws IOException {
        send(OP_BINARY, payload);
    }

    /** Closes the connection at once, without a closing handshake; a blocked send or read fails. */
    void abort() {
        closed = true;
        try {
            raw.close(); // the TCP socket, also under TLS: an SSLSocket's close would wait for a blocked writer
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private void send(int opcode, ByteBuffer payload) throws IOException {
        writing.lock();
        try {
            if (closed) {
                throw new IOException("the WebSocket is closed");
            }
            writeFrame(opcode, payload);
            byte[] pong = pendingPong;
            if (pong != null) {
                pendingPong = null;
                writeFrame(OP_PONG, ByteBuffer.wrap(pong));
            }
        } finally {
            writing.unlock();
        }
    }

    /** One unfragmented, masked frame (clients must mask: RFC 6455, 5.3). Caller holds the write lock. */
    private void writeFrame(int opcode, ByteBuffer payload) throws IOException {
        int n = payload.remaining();
        int header = 2 + (n < 126 ? 0 : n <= 0xFFFF ? 2 : 8) + 4;
        if (scratch.length < header + n) {
            scratch = new byte[Math.max(header + n, scratch.length * 2)];
        }
        ByteBuffer frame = ByteBuffer.wrap(scratch).order(ByteOrder.BIG_ENDIAN);
        frame.put((byte) (0x80 | opcode));
        if (n < 126) {
            frame.put((byte) (0x80 | n));
        } else if (n <= 0xFFFF) {
            frame.put((byte) (0x80 | 126)).putShort((short) n);
        } else {
            frame.put((byte) (0x80 | 127)).putLong(n);
        }
        int mask = ThreadLocalRandom.current().nextInt();
        frame.putInt(mask);
        long mask2 = ((long) mask << 32) | (mask & 0xFFFFFFFFL);
        ByteBuffer src = payload.duplicate().order(ByteOrder.BIG_ENDIAN);
        while (src.remaining() >= 8) { // 8 bytes at a time; each step starts at a multiple of 4, as the mask does
            frame.putLong(src.getLong() ^ mask2);
        }
        for (int i = 0; src.hasRemaining(); i++) {
            frame.put((byte) (src.get() ^ (mask >>> (24 - 8 * (i & 3)))));
        }
        out.write(scratch, 0, frame.position());
        out.flush();
    }

    private void readLoop() {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        int messageOpcode = -1;
        try {
            while (true) {
                int b0 = in.readUnsignedByte();
                int b1 = in.readUnsignedByte();
                boolean fin = (b0 & 0x80) != 0;
                int opcode = b0 & 0x0F;
                if ((b0 & 0x70) != 0 || (b1 & 0x80) != 0) {
                    throw new IOException("protocol error: a server frame with reserved bits or a mask (byte 0 0x"
                            + Integer.toHexString(b0) + ", byte 1 0x" + Integer.toHexString(b1) + ")");
                }
                long length = b1 & 0x7F;
                if (length == 126) {
                    length = in.readUnsignedShort();
                } else if (length == 127) {
                    length = in.readLong();
                }
                if (length < 0 || length + message.size() > MAX_MESSAGE_BYTES) {
                    throw new IOException("protocol error: a server message of more than " + MAX_MESSAGE_BYTES + " bytes");
                }
                byte[] payload = new byte[(int) length];
                in.readFully(payload);
                switch (opcode) {
                    case OP_TEXT, OP_BINARY, OP_CONTINUATION -> {
                        if ((opcode == OP_CONTINUATION) == (messageOpcode < 0)) {
                            throw new IOException("protocol error: " + (opcode == OP_CONTINUATION
                                    ? "a continuation frame with no message to continue" : "a new message inside a fragmented one"));
                        }
                        if (opcode != OP_CONTINUATION) {
                            messageOpcode = opcode;
                        }
                        message.write(payload);
                        if (fin) {
                            if (messageOpcode == OP_TEXT) {
                                listener.onText(this, message.toString(StandardCharsets.UTF_8));
                            } // the controller sends no binary messages
                            message.reset();
                            messageOpcode = -1;
                        }
                    }
                    case OP_PING -> {
                        listener.onPing(this);
                        pong(payload);
                    }
                    case OP_PONG -> {
                        // unsolicited or late: nothing to do
                    }
                    case OP_CLOSE -> {
                        int code = payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
                        String reason = payload.length > 2
                                ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8) : "";
                        if (writing.tryLock()) { // echo the close (RFC 6455, 5.5.1) unless a message is being written
                            try {
                                writeFrame(OP_CLOSE, ByteBuffer.wrap(payload, 0, Math.min(2, payload.length)));
                            } catch (IOException ignored) {
                                // closing anyway
                            } finally {
                                writing.unlock();
                            }
                        }
                        abort();
                        listener.onClosed(this, code, reason, null);
                        return;
                    }
                    default -> throw new IOException("protocol error: unknown opcode 0x" + Integer.toHexString(opcode));
                }
            }
        } catch (IOException | RuntimeException e) {
            boolean aborted = closed;
            abort();
            listener.onClosed(this, -1, null, aborted ? new IOException("aborted", e)
                    : e instanceof EOFException ? new EOFException("the server closed the connection without a close frame") : e);
        }
    }

    /** Answers a ping now if nothing is being written, else leaves it to the writer (after its message). */
    private void pong(byte[] payload) throws IOException {
        pendingPong = payload;
        if (writing.tryLock()) {
            try {
                byte[] pong = pendingPong;
                if (pong != null && !closed) {
                    pendingPong = null;
                    writeFrame(OP_PONG, ByteBuffer.wrap(pong));
                }
            } finally {
                writing.unlock();
            }
        }
    }
}
