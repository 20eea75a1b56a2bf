package org.qplab.controller.deploy;

import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.ChannelSftp;
import com.jcraft.jsch.HostKey;
import com.jcraft.jsch.HostKeyRepository;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchChangedHostKeyException;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.JSchUnknownHostKeyException;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.SftpException;
import com.jcraft.jsch.UserInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Base64;

/**
 * One SSH session to a host (JSch): key authentication, the host key checked against a known_hosts
 * file, commands with a deadline, SFTP uploads. A host key not in the file is refused, unless the
 * caller asked to pin it on first use; a changed key is always refused.
 */
final class SshConnection implements AutoCloseable {

    /** What a remote command did. */
    record Result(int exitCode, String stdout, String stderr) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private final Session session;
    private final String where;

    private SshConnection(Session session, String where) {
        this.session = session;
        this.where = where;
    }

    static SshConnection open(DeployProperties properties, HostRepository.Host host, boolean pinHostKey) {
        String where = host.sshUser() + "@" + host.address() + ":" + host.sshPort();
        Path key = properties.privateKey();
        if (!Files.isReadable(key)) {
            throw new DeployException("no SSH private key at " + key
                    + ": set qplab.deploy.private-key to the key whose public half is in the hosts' authorized_keys");
        }
        Path knownHosts = properties.knownHosts();
        Pinning pinning = null;
        try {
            JSch jsch = new JSch();
            jsch.addIdentity(key.toString());
            if (Files.exists(knownHosts)) {
                jsch.setKnownHosts(knownHosts.toString());
            }
            pinning = new Pinning(jsch.getHostKeyRepository(), pinHostKey, knownHosts);
            jsch.setHostKeyRepository(pinning);
            Session session = jsch.getSession(host.sshUser(), host.address(), host.sshPort());
            session.setConfig("StrictHostKeyChecking", "yes");
            session.setConfig("PreferredAuthentications", "publickey");
            session.connect((int) properties.connectTimeout().toMillis());
            return new SshConnection(session, where);
        } catch (JSchUnknownHostKeyException e) {
            throw new DeployException("the host key of " + where + " is not in " + knownHosts + " ("
                    + (pinning == null ? e.getMessage() : pinning.unknown) + "). Check that fingerprint on the host (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then add "
                    + "the key to that file (ssh-keyscan -p " + host.sshPort() + " " + host.address() + " >> "
                    + knownHosts + "), or deploy once with pinHostKey=true to trust it on first use");
        } catch (JSchChangedHostKeyException e) {
            throw new DeployException("the host key of " + where + " has CHANGED from the one in " + knownHosts
                    + " — refusing to connect (" + e.getMessage() + "). If the host was reinstalled, remove its old "
                    + "line from that file");
        } catch (JSchException e) {
            throw new DeployException("SSH to " + where + " failed: " + e.getMessage(), e);
        }
    }

    /** Runs a command through the remote user's shell; stops waiting after timeout. */
    Result exec(String command, Duration timeout) {
        ChannelExec channel = null;
        try {
            channel = (ChannelExec) session.openChannel("exec");
            channel.setCommand(command);
            channel.setInputStream(null);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            channel.setErrStream(err);
            InputStream out = channel.getInputStream();
            channel.connect((int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                while (out.available() > 0) {
                    int n = out.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    stdout.write(buffer, 0, n);
                }
                if (channel.isClosed() && out.available() == 0) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new DeployException("`" + command + "` on " + where + " did not finish within " + timeout);
                }
                Thread.sleep(20);
            }
            return new Result(channel.getExitStatus(), stdout.toString(StandardCharsets.UTF_8),
                    err.toString(StandardCharsets.UTF_8));
        } catch (JSchException | IOException e) {
            throw new DeployException("`" + command + "` on " + where + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeployException("interrupted while running `" + command + "` on " + where);
        } finally {
            if (channel != null) {
                channel.disconnect();
            }
        }
    }

    /** Runs a command and fails with its output unless it exits 0. */
    String run(String command, Duration timeout) {
        Result r = exec(command, timeout);
        if (!r.ok()) {
            throw new DeployException("`" + command + "` on " + where + " exited " + r.exitCode() + ": "
                    + (r.stderr().isBlank() ? r.stdout() : r.stderr()).strip());
        }
        return r.stdout();
    }

    /** Writes data to remotePath over SFTP with the given permission bits. */
    void upload(InputStream data, String remotePath, int mode) {
        ChannelSftp sftp = null;
        try {
            sftp = (ChannelSftp) session.openChannel("sftp");
            sftp.connect();
            sftp.put(data, remotePath, ChannelSftp.OVERWRITE);
            sftp.chmod(mode, remotePath);
        } catch (JSchException | SftpException e) {
            throw new DeployException("SFTP upload of " + remotePath + " to " + where + " failed: " + e.getMessage()
                    + " (is the SFTP subsystem enabled in the host's sshd_config?)", e);
        } finally {
            if (sftp != null) {
                sftp.disconnect();
            }
        }
    }

    String where() {
        return where;
    }

    @Override
    public void close() {
        session.disconnect();
    }

    /** known_hosts checking that can add a never-seen key, on explicit request only. */
    private static final class Pinning implements HostKeyRepository {

        private final HostKeyRepository known;
        private final boolean pin;
        private final Path file;
        /** The key type and SHA256 fingerprint of the last key not found, as ssh-keygen -l prints it. */
        private String unknown = "";

        Pinning(HostKeyRepository known, boolean pin, Path file) {
            this.known = known;
            this.pin = pin;
            this.file = file;
        }

        @Override
        public int check(String host, byte[] key) {
            int result = known.check(host, key);
            if (result == NOT_INCLUDED) {
                unknown = keyType(key) + " key fingerprint " + fingerprint(key);
            }
            if (result == NOT_INCLUDED && pin) {
                try {
                    Path parent = file.toAbsolutePath().getParent();
                    if (parent != null) {
                        Files.createDirectories(parent);
                    }
                    String line = host + " " + keyType(key) + " " + Base64.getEncoder().encodeToString(key) + "\n";
                    Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new DeployException("could not pin the host key of " + host + " in " + file + ": " + e.getMessage(), e);
                }
                return OK;
            }
            return result;
        }

        private static String fingerprint(byte[] blob) {
            try {
                return "SHA256:" + Base64.getEncoder().withoutPadding()
                        .encodeToString(java.security.MessageDigest.getInstance("SHA-256").digest(blob));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        private static String keyType(byte[] blob) {
            ByteBuffer b = ByteBuffer.wrap(blob);
            int n = b.getInt();
            return new String(blob, 4, n, StandardCharsets.US_ASCII);
        }

        @Override
        public void add(HostKey hostkey, UserInfo ui) {
            known.add(hostkey, ui);
        }

        @Override
        public void remove(String host, String type) {
            known.remove(host, type);
        }

        @Override
        public void remove(String host, String type, byte[] key) {
            known.remove(host, type, key);
        }

        @Override
        public String getKnownHostsRepositoryID() {
            return known.getKnownHostsRepositoryID();
        }

        @Override
        public HostKey[] getHostKey() {
            return known.getHostKey();
        }

        @Override
        public HostKey[] getHostKey(String host, String type) {
            return known.getHostKey(host, type);
        }
    }
}
