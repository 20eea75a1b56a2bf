package org.qplab.controller.agent;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** The token agents must present: configured (qplab.agents.token), or made up at start-up and logged. */
@Component
public class AgentToken {

    private static final Logger log = LoggerFactory.getLogger(AgentToken.class);
    private final String value;

    public AgentToken(AgentProperties properties) {
        if (properties.token() != null && !properties.token().isBlank()) {
            value = properties.token();
        } else {
            byte[] random = new byte[16];
            new SecureRandom().nextBytes(random);
            value = HexFormat.of().formatHex(random);
            log.info("No qplab.agents.token configured; agents must present this one: {}", value);
        }
    }

    public String value() {
        return value;
    }
}
