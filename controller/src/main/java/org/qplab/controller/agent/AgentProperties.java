package org.qplab.controller.agent;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.agents.*
 *
 * @param token            the shared enrolment secret: an agent id never bound to a token of its own may enrol with
 *                         it while enrolment is on, and is given its own token at once (the secret never registers
 *                         that id again). When unset, the controller makes a random one at start-up and writes it to
 *                         token-file (never to its log)
 * @param tokenFile        where a generated shared token is written, mode 0600; unset: ~/.local/share/qplab/agent.token
 *                         (/var/lib/qplab/agent.token for root)
 * @param enrolment        whether the shared token is accepted at all (true is the local ./qplab mode); off, only
 *                         per-agent tokens (POST /api/agents/{id}/token, or issued at deploy) let an agent in
 * @param lostAfter        how long an agent may stay disconnected before its running run is failed
 * @param helloTimeout     how long a new connection may take to say a valid hello before it is closed
 * @param failedHelloLimit failed hellos from one address within a minute after which its hellos are refused for
 *                         failed-hello-block, but those with the agent id's own token
 * @param failedHelloBlock how long an address that reached failed-hello-limit is refused
 * @param heartbeatWrite   how often the heartbeats noted since the last write are stored, together in one statement
 *                         (also at once when the agent list is read or an agent disconnects)
 */
@ConfigurationProperties("qplab.agents")
public record AgentProperties(String token, String tokenFile, @DefaultValue("true") boolean enrolment,
                              @DefaultValue("60s") Duration lostAfter, @DefaultValue("10s") Duration helloTimeout,
                              @DefaultValue("5") int failedHelloLimit, @DefaultValue("30s") Duration failedHelloBlock,
                              @DefaultValue("2s") Duration heartbeatWrite) {}
