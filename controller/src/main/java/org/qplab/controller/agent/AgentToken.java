package org.qplab.controller.agent;

import java.nio.charset.StandardCharsets;
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
 * Which tokens agents may present: the shared token (qplab.agents.token, or made up at start-up and
 * logged), or the per-agent token issued when the controller deployed that agent (its SHA-256 is in
 * the host table; the agent must register under its host's name).
 */
@Component
public class AgentToken {

    private static final Logger log = LoggerFactory.getLogger(AgentToken.class);
    private final byte[] shared;
    private final JdbcClient jdbc;

    public AgentToken(AgentProperties properties, JdbcClient jdbc) {
        this.jdbc = jdbc;
        String value;
        if (properties.token() != null && !properties.token().isBlank()) {
            value = properties.token();
        } else {
            byte[] random = new byte[16];
            new SecureRandom().nextBytes(random);
            value = HexFormat.of().formatHex(random);
            log.info("No qplab.agents.token configured; agents must present this one: {}", value);
        }
        shared = value.getBytes(StandardCharsets.UTF_8);
    }

    public String value() {
        return new String(shared, StandardCharsets.UTF_8);
    }

    /** True when agentId may register with token. Blocking (reads the host table). */
    public boolean accepts(String agentId, String token) {
        byte[] presented = token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8);
        if (MessageDigest.isEqual(presented, shared)) {
            return true;
        }
        if (agentId == null || token == null) {
            return false;
        }
        List<byte[]> issued = jdbc.sql("SELECT token_sha256 FROM host WHERE name = ? AND token_sha256 IS NOT NULL")
                .param(agentId).query(byte[].class).list();
        return !issued.isEmpty() && MessageDigest.isEqual(issued.get(0), sha256(token));
    }

    public static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
