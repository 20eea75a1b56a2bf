package org.qplab.agent;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Which controllers a wss:// link believes: the JDK's trust store, plus the certificates of --ca-file (the
 * controller's own self-signed certificate, or the CA that signed it). The host name is always checked
 * (BlockingWebSocket).
 */
final class ControllerTrust {

    private ControllerTrust() {
    }

    /** A socket factory trusting the JDK's CAs and those in caFile; null (the JDK's default) without a file. */
    static SSLSocketFactory socketFactory(Path caFile) {
        if (caFile == null) {
            return null;
        }
        Collection<? extends Certificate> extra = certificates(caFile);
        try {
            KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
            anchors.load(null, null);
            int n = 0;
            for (X509Certificate ca : jdkTrust().getAcceptedIssuers()) {
                anchors.setCertificateEntry("jdk-" + n++, ca);
            }
            for (Certificate certificate : extra) {
                anchors.setCertificateEntry("ca-file-" + n++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(anchors);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, trust.getTrustManagers(), null);
            return tls.getSocketFactory();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS trusting " + caFile + ": " + e, e);
        }
    }

    /**
     * What to tell the operator when a wss:// handshake failed over the controller's certificate; null when the
     * failure is something else (the caller says "cannot reach").
     */
    static String explain(URI controller, Throwable failure, boolean caFileGiven) {
        if (!(failure instanceof SSLHandshakeException)) {
            return null;
        }
        Throwable cause = failure;
        boolean untrusted = false;
        boolean certificate = false;
        for (; cause != null; cause = cause.getCause()) {
            untrusted |= cause instanceof CertPathBuilderException || cause instanceof CertPathValidatorException;
            certificate |= cause instanceof CertificateException;
        }
        String detail = root(failure).getMessage();
        if (untrusted) {
            return "the controller at " + controller + " presented a certificate this agent does not trust (" + detail
                    + "): pass --ca-file FILE (env QPLAB_CA_FILE) with the controller's certificate or the CA that signed it"
                    + (caFileGiven ? "; the --ca-file given does not hold it" : "");
        }
        if (certificate && detail != null && detail.contains("matching")) { // sun.security.util.HostnameChecker
            return "the certificate of the controller at " + controller + " does not name " + controller.getHost() + " ("
                    + detail + "): connect with a name or address it was issued for, or reissue it with this one";
        }
        if (certificate) {
            return "the certificate of the controller at " + controller + " does not verify: " + detail;
        }
        return null;
    }

    private static Collection<? extends Certificate> certificates(Path caFile) {
        try (InputStream in = Files.newInputStream(caFile)) {
            Collection<? extends Certificate> found = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (found.isEmpty()) {
                throw new IllegalArgumentException("--ca-file " + caFile + " holds no certificate (a PEM file with "
                        + "-----BEGIN CERTIFICATE----- blocks is expected)");
            }
            return found;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --ca-file " + caFile + ": " + e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException("--ca-file " + caFile + " is not a PEM certificate: " + e.getMessage());
        }
    }

    private static X509TrustManager jdkTrust() throws GeneralSecurityException {
        TrustManagerFactory jdk = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        jdk.init((KeyStore) null);
        for (var manager : jdk.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JDK has no X.509 trust manager");
    }

    private static Throwable root(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root;
    }
}
