package org.qplab.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --ca-file: a controller's self-signed certificate is believed with it, and refused without it in plain words. */
class ControllerTrustIntegrationTests {

    @Test
    void trustsTheCaFileAndExplainsAnUntrustedOrMisnamedCertificate(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("controller.p12");
        keytool("-genkeypair", "-alias", "controller", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=qplab test", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit");
        Path pem = dir.resolve("controller.pem");
        keytool("-exportcert", "-rfc", "-alias", "controller", "-keystore", keystore.toString(), "-storepass", "changeit",
                "-file", pem.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(ks, "changeit".toCharArray());
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(keys.getKeyManagers(), null, null);

        try (SSLServerSocket server = (SSLServerSocket) serverTls.getServerSocketFactory()
                .createServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread serve = new Thread(() -> {
                while (!server.isClosed()) {
                    try (SSLSocket peer = (SSLSocket) server.accept()) {
                        peer.startHandshake();
                    } catch (IOException ignored) {
                        // the client refused us, which is what some cases expect
                    }
                }
            });
            serve.setDaemon(true);
            serve.start();
            URI byAddress = URI.create("wss://127.0.0.1:" + server.getLocalPort() + "/agent");
            URI byName = URI.create("wss://localhost:" + server.getLocalPort() + "/agent");

            handshake(ControllerTrust.socketFactory(pem), byAddress); // no exception: trusted

            assertThat(ControllerTrust.socketFactory(null)).as("no --ca-file: the JDK's default").isNull();
            var untrusted = catchHandshake((SSLSocketFactory) SSLSocketFactory.getDefault(), byAddress);
            assertThat(ControllerTrust.explain(byAddress, untrusted, false)).startsWith("the controller at " + byAddress
                    + " presented a certificate this agent does not trust (").endsWith("): pass --ca-file FILE (env "
                    + "QPLAB_CA_FILE) with the controller's certificate or the CA that signed it");

            var misnamed = catchHandshake(ControllerTrust.socketFactory(pem), byName);
            assertThat(ControllerTrust.explain(byName, misnamed, true)).startsWith("the certificate of the controller at "
                    + byName + " does not name localhost (");
            assertThat(ControllerTrust.explain(byName, new IOException("Connection refused"), true)).isNull();
            server.close();
        }
    }

    @Test
    void refusesACaFileWithoutACertificateNamingIt(@TempDir Path dir) throws IOException {
        Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n"
                + "-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> ControllerTrust.socketFactory(key)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--ca-file " + key);
        assertThatThrownBy(() -> ControllerTrust.socketFactory(dir.resolve("none.pem")))
                .hasMessageStartingWith("cannot read --ca-file " + dir.resolve("none.pem"));
    }

    /** A TLS handshake as BlockingWebSocket makes it: the host name checked. */
    private static void handshake(SSLSocketFactory factory, URI uri) throws IOException {
        try (Socket raw = new Socket(uri.getHost(), uri.getPort());
             SSLSocket tls = (SSLSocket) factory.createSocket(raw, uri.getHost(), uri.getPort(), true)) {
            SSLParameters parameters = tls.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(parameters);
            tls.startHandshake();
        }
    }

    private static SSLHandshakeException catchHandshake(SSLSocketFactory factory, URI uri) {
        try {
            handshake(factory, uri);
        } catch (SSLHandshakeException e) {
            return e;
        } catch (IOException e) {
            throw new AssertionError("expected a refused handshake, got " + e, e);
        }
        throw new AssertionError("the handshake with " + uri + " passed");
    }

    private static void keytool(String... args) throws Exception {
        var command = new java.util.ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(java.util.List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0).as("keytool: %s", out).isTrue();
    }
}
