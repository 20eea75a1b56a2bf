package org.qplab.controller.agent;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.agents.*
 *
 * @param token     the token every agent must present (env QPLAB_AGENT_TOKEN); when unset, the controller
 *                  makes a random one at start-up and logs it
 * @param lostAfter how long an agent may stay disconnected before its running run is failed (default 60 s)
 */
@ConfigurationProperties("qplab.agents")
public record AgentProperties(String token, @DefaultValue("60s") Duration lostAfter) {}
