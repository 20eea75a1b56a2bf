package org.qplab.controller.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.qplab.controller.security.Sha256;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Which tokens agents may present. An agent id bound to a token of its own (enrolled, issued by an admin, in
 * agent_token; or deployed, in the host table) registers only with that token. The shared enrolment secret
 * (qplab.agents.token, or made up at start-up and written to a 0600 file) registers only an id that has never been
 * bound (agent_identity), while enrolment is on, and binds it at once: the agent gets a token of its own in its
 * welcome. Only SHA-256s of tokens are kept, and no token is ever logged.
 */
@Component
public class AgentToken {

    /** What an agent id may be (a token is bound to one). */
    static final String AGENT_ID = "[A-Za-z0-9._:-]{1,128}";
    private static final Logger log = LoggerFactory.getLogger(AgentToken.class);

    /** What a hello's token is, for its agent id. */
    enum Presented {
        /** the id's own token */
        OWN,
        /** the enrolment secret, for an id never bound to a token of its own: it may enrol */
        ENROLMENT,
        /** the enrolment secret, for an id that has or had a token of its own */
        ENROLMENT_CLOSED,
        /** anything else */
        WRONG
    }

    private final byte[] sharedSha256;
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
        sharedSha256 = value == null || value.isBlank() || !enrolment ? null : sha256(value);
    }

    /** What token is for agentId. Blocking (reads the token tables). */
    Presented check(String agentId, String token) {
        if (agentId == null || token == null) {
            return Presented.WRONG;
        }
        List<byte[]> own = jdbc.sql("""
                        SELECT token_sha256 FROM agent_token WHERE agent_id = ? AND token_sha256 IS NOT NULL
                        UNION ALL SELECT token_sha256 FROM host WHERE name = ? AND token_sha256 IS NOT NULL""")
                .params(agentId, agentId).query(byte[].class).list();
        byte[] presented = sha256(token);
        boolean match = false;
        for (byte[] issued : own) {
            match |= MessageDigest.isEqual(issued, presented);
        }
        if (match) {
            return Presented.OWN;
        }
        if (sharedSha256 == null || !MessageDigest.isEqual(sharedSha256, presented)) {
            return Presented.WRONG;
        }
        boolean bound = !own.isEmpty() || jdbc.sql("SELECT EXISTS (SELECT 1 FROM agent_identity WHERE agent_id = ?)")
                .param(agentId).query(Boolean.class).single();
        return bound ? Presented.ENROLMENT_CLOSED : Presented.ENROLMENT;
    }

    /** Whether the token of this SHA-256 is still one of agentId's own. Blocking. */
    boolean holds(String agentId, byte[] tokenSha256) {
        return jdbc.sql("""
                        SELECT EXISTS (SELECT 1 FROM agent_token WHERE agent_id = ? AND token_sha256 = ?)
                            OR EXISTS (SELECT 1 FROM host WHERE name = ? AND token_sha256 = ?)""")
                .params(agentId, tokenSha256, agentId, tokenSha256).query(Boolean.class).single();
    }

    /**
     * Binds agentId, never bound before, to a new token of its own and returns it; null when the id was bound
     * meanwhile (another enrolment, an admin, a deploy). One statement: of two enrolments at once, one wins. Blocking.
     */
    String enrol(String agentId) {
        String token = HexFormat.of().formatHex(random(32));
        List<String> enrolled = jdbc.sql("""
                        WITH bound AS (INSERT INTO agent_identity (agent_id, bound_by) VALUES (?, 'enrolment')
                                       ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id)
                        INSERT INTO agent_token (agent_id, token_sha256) SELECT agent_id, ? FROM bound
                        ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id""")
                .params(agentId, sha256(token)).query(String.class).list();
        return enrolled.isEmpty() ? null : token;
    }

    /**
     * Makes a new token for agentId, replacing any it had, and returns it (only its SHA-256 is kept); the id is
     * closed to the enrolment secret from now on. Blocking.
     */
    public String issue(String agentId) {
        String token = HexFormat.of().formatHex(random(32));
        jdbc.sql("""
                WITH bound AS (INSERT INTO agent_identity (agent_id, bound_by) VALUES (?, 'admin')
                               ON CONFLICT (agent_id) DO NOTHING)
                INSERT INTO agent_token (agent_id, token_sha256) VALUES (?, ?)
                ON CONFLICT (agent_id) DO UPDATE SET token_sha256 = excluded.token_sha256, issued_at = now()""")
                .params(agentId, agentId, sha256(token)).update();
        return token;
    }

    /**
     * Forgets agentId's own tokens, the one issued to it (agent_token) and the one its host was deployed with; false
     * when it had none. The id stays closed to the enrolment secret. Blocking.
     */
    public boolean revoke(String agentId) {
        return jdbc.sql("""
                        WITH issued AS (DELETE FROM agent_token WHERE agent_id = ? RETURNING agent_id),
                             deployed AS (UPDATE host SET token_sha256 = NULL WHERE name = ? AND token_sha256 IS NOT NULL
                                          RETURNING name)
                        SELECT (SELECT count(*) FROM issued) + (SELECT count(*) FROM deployed)""")
                .params(agentId, agentId).query(Long.class).single() > 0;
    }

    public static byte[] sha256(String text) {
        return Sha256.of(text);
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
