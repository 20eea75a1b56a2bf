package org.qplab.controller.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Which tokens agents may present. An agent id with a token of its own (issued by an admin, in agent_token, or
 * at deploy, in the host table) registers only with that token. Any other id may register with the shared
 * enrolment token (qplab.agents.token, or made up at start-up and written to a 0600 file) while enrolment is on.
 * Only SHA-256s of tokens are kept, and no token is ever logged.
 */
@Component
public class AgentToken {

    /** What an agent id may be (a token is bound to one). */
    static final String AGENT_ID = "[A-Za-z0-9._:-]{1,128}";
    private static final Logger log = LoggerFactory.getLogger(AgentToken.class);
    private final byte[] shared;
    private final boolean enrolment;
    private final JdbcClient jdbc;

    public AgentToken(AgentProperties properties, JdbcClient jdbc) {
        this.jdbc = jdbc;
        this.enrolment = properties.enrolment();
        String value = properties.token();
        if ((value == null || value.isBlank()) && enrolment) {
            value = HexFormat.of().formatHex(random(16));
            Path file = properties.tokenFile() != null ? Path.of(properties.tokenFile()) : defaultTokenFile();
            writePrivately(file, value);
            log.info("No qplab.agents.token configured: agents may enrol with the token written to {} (mode 0600)",
                    file.toAbsolutePath());
        } else if (!enrolment) {
            log.info("Agent enrolment is off (qplab.agents.enrolment=false): only agents with a token of their own register");
        }
        shared = value == null || value.isBlank() ? null : value.getBytes(StandardCharsets.UTF_8);
    }

    /** True when agentId may register with token. Blocking (reads the token tables). */
    public boolean accepts(String agentId, String token) {
        if (agentId == null || token == null) {
            return false;
        }
        List<byte[]> own = jdbc.sql("""
                        SELECT token_sha256 FROM agent_token WHERE agent_id = ?
                        UNION ALL SELECT token_sha256 FROM host WHERE name = ? AND token_sha256 IS NOT NULL""")
                .params(agentId, agentId).query(byte[].class).list();
        byte[] presented = sha256(token);
        if (!own.isEmpty()) { // bound to its own token: the shared one no longer lets anyone in under this id
            boolean match = false;
            for (byte[] issued : own) {
                match |= MessageDigest.isEqual(issued, presented);
            }
            return match;
        }
        return enrolment && shared != null && MessageDigest.isEqual(sha256(shared), presented);
    }

    /** Makes a new token for agentId, replacing any it had, and returns it (only its SHA-256 is kept). Blocking. */
    public String issue(String agentId) {
        String token = HexFormat.of().formatHex(random(32));
        jdbc.sql("""
                INSERT INTO agent_token (agent_id, token_sha256) VALUES (?, ?)
                ON CONFLICT (agent_id) DO UPDATE SET token_sha256 = excluded.token_sha256, issued_at = now()""")
                .params(agentId, sha256(token)).update();
        return token;
    }

    /** Forgets agentId's issued token; false when it had none. Blocking. */
    public boolean revoke(String agentId) {
        return jdbc.sql("DELETE FROM agent_token WHERE agent_id = ?").param(agentId).update() > 0;
    }

    public static byte[] sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] random(int bytes) {
        byte[] random = new byte[bytes];
        new SecureRandom().nextBytes(random);
        return random;
    }

    private static Path defaultTokenFile() {
        if ("root".equals(System.getProperty("user.name"))) {
            return Path.of("/var/lib/qplab", "agent.token");
        }
        String xdg = System.getenv("XDG_DATA_HOME");
        Path home = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return home.resolve("qplab").resolve("agent.token");
    }

    /** Writes the file readable by its owner only, from its creation on (no moment at 0644). */
    private static void writePrivately(Path file, String text) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, text + "\n", StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the generated agent token to " + file, e);
        }
    }
}
