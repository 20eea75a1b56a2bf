package org.qplab.agent;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.qplab.agent.log.Log;

/**
 * The tokens this agent presents, in turn. First the token the controller issued it when it enrolled, kept in
 * STATE_DIR/agent.token (mode 0600 in a 0700 directory: a token is a password); then the configured one
 * (--token-file or QPLAB_AGENT_TOKEN): the enrolment secret, or a token of its own from an admin or a deploy. A
 * token the controller refuses is set aside for this process and the next one is tried; when none is left, the
 * agent stops. The enrolment secret registers a new id once: the controller's welcome then carries the agent's own
 * token, which is written to the file and presented from then on.
 */
final class AgentCredentials {

    static final String FILE = "agent.token";
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private final Path file;
    /** Tokens not refused yet, the next to present first. */
    private final List<String> tokens = new ArrayList<>();
    private final String configured;
    private boolean storedRefused;

    private AgentCredentials(Path file, String stored, String configured) {
        this.file = file;
        this.configured = configured;
        if (stored != null) {
            tokens.add(stored);
        }
        if (configured != null && !configured.equals(stored)) {
            tokens.add(configured);
        }
    }

    /** The tokens of an agent with this state directory and configured token; refuses a token file others may read. */
    static AgentCredentials load(Path stateDir, String configured) {
        Path file = stateDir.resolve(FILE);
        if (!Files.exists(file)) {
            return new AgentCredentials(file, null, configured);
        }
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (!PRIVATE.containsAll(mode)) {
                throw new IllegalArgumentException(file + " holds this agent's token and may be read by others (mode "
                        + PosixFilePermissions.toString(mode) + "): chmod 600 it");
            }
            String stored = Files.readString(file).strip();
            return new AgentCredentials(file, stored.isEmpty() ? null : stored, configured);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read this agent's token file " + file + ": " + e);
        }
    }

    /** The token to present next (null when none is left). */
    synchronized String current() {
        return tokens.isEmpty() ? null : tokens.get(0);
    }

    /** The controller refused the current token; true when another is left to present. */
    synchronized boolean refused() {
        if (!tokens.isEmpty()) {
            storedRefused |= !tokens.get(0).equals(configured);
            tokens.remove(0);
        }
        return !tokens.isEmpty();
    }

    /**
     * The controller registered this agent with the current token. A stored token it refused earlier is deleted, so
     * that the next start does not present it again (a refused hello counts against this host's address).
     */
    synchronized void accepted() {
        if (storedRefused && tokens.size() > 0 && tokens.get(0).equals(configured)) {
            try {
                Files.deleteIfExists(file);
                Log.info("deleted " + file + ": the controller no longer takes the token in it");
            } catch (IOException e) {
                Log.info("cannot delete " + file + ", whose token the controller no longer takes: " + e.getMessage());
            }
            storedRefused = false;
        }
    }

    /** The controller issued this agent a token of its own: presented from now on, and kept in the file. */
    synchronized void issued(String token) throws IOException {
        tokens.remove(token);
        tokens.add(0, token);
        storedRefused = false;
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PRIVATE)); // 0600 from its creation on
        Files.writeString(tmp, token + "\n");
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    Path file() {
        return file;
    }
}
