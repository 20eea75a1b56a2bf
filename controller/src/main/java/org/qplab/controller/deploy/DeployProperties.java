package org.qplab.controller.deploy;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.deploy.* — how the controller reaches hosts over SSH to deploy its agent.
 *
 * @param privateKey      the SSH private key (key authentication only); unset: ~/.ssh/id_ed25519
 * @param knownHosts      the known_hosts file host keys are checked against; unset: ~/.ssh/known_hosts
 * @param controllerUrl   the agent gateway URL deployed agents connect to (ws://HOST:PORT/agent); when unset,
 *                        the address the host sees the controller's SSH connection come from, and this
 *                        controller's port
 * @param java            the java command on the hosts (a JDK or JRE 17+ must be installed there)
 * @param connectTimeout  SSH connect timeout
 * @param registerTimeout how long a started agent has to register before the deploy fails
 */
@ConfigurationProperties("qplab.deploy")
public record DeployProperties(
        Path privateKey,
        Path knownHosts,
        String controllerUrl,
        @DefaultValue("java") String java,
        @DefaultValue("15s") Duration connectTimeout,
        @DefaultValue("120s") Duration registerTimeout) {

    public DeployProperties {
        Path ssh = Path.of(System.getProperty("user.home"), ".ssh");
        privateKey = privateKey != null ? privateKey : ssh.resolve("id_ed25519");
        knownHosts = knownHosts != null ? knownHosts : ssh.resolve("known_hosts");
    }
}
