package org.qplab.controller.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.security.*
 *
 * @param anonymousRead      let anyone read (dashboards and GET requests) without logging in; changes still need
 *                           an account
 * @param allowedHosts       host names a request's Host header may name, besides loopback names, IP literals, this
 *                           machine's own names and server.address (against DNS rebinding). E.g. the name agents
 *                           and browsers use to reach the controller in a lab.
 * @param adminPassword      the first admin's password (at least 8 characters), used only when no account exists yet
 * @param adminPasswordFile  where a generated first admin password is written once (0600) when admin-password is
 *                           unset; unset: ~/.local/share/qplab/admin-password
 * @param cliTokenFile       when set, at every start the admin gets a fresh API token named "qplab-cli" and a tag of
 *                           this host and file (the earlier one of the same is revoked), written to this file (0600): how ./qplab signs its own CLI in
 * @param throttle           what guessing costs: failed logins (per account and per address) and unknown API tokens
 *                           (per address) back off exponentially
 */
@ConfigurationProperties("qplab.security")
public record SecurityProperties(@DefaultValue("false") Boolean anonymousRead, List<String> allowedHosts,
                                 String adminPassword, Path adminPasswordFile, Path cliTokenFile,
                                 @DefaultValue Throttle throttle) {

    /**
     * qplab.security.throttle.*: the first free-tries failures of a key cost nothing; each further one makes the key
     * wait first-delay, doubling up to max-delay; a try while waiting answers 429 with Retry-After and is not
     * checked. A key quiet for forget-after past its wait starts afresh.
     *
     * @param freeTries   failures of a key (an account or an address) before any wait
     * @param firstDelay  the wait after the first failure beyond free-tries
     * @param maxDelay    the longest wait
     * @param forgetAfter how long a key's failures are remembered once its wait is over
     */
    public record Throttle(@DefaultValue("5") int freeTries, @DefaultValue("1s") Duration firstDelay,
                           @DefaultValue("5m") Duration maxDelay, @DefaultValue("30m") Duration forgetAfter) {
        public Throttle {
            if (freeTries < 0 || firstDelay.isNegative() || maxDelay.compareTo(firstDelay) < 0 || forgetAfter.isNegative()) {
                throw new IllegalArgumentException("qplab.security.throttle: free-tries >= 0, first-delay >= 0, max-delay "
                        + ">= first-delay and forget-after >= 0, got " + freeTries + ", " + firstDelay + ", " + maxDelay
                        + ", " + forgetAfter);
            }
        }
    }

    public SecurityProperties {
        allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
        if (adminPasswordFile == null) {
            adminPasswordFile = Path.of(System.getProperty("user.home"), ".local", "share", "qplab", "admin-password");
        }
        if (adminPassword != null && adminPassword.isBlank()) {
            adminPassword = null;
        }
        if (adminPassword != null && adminPassword.length() < 8) {
            throw new IllegalArgumentException("qplab.security.admin-password (QPLAB_ADMIN_PASSWORD) must have at least "
                    + "8 characters");
        }
    }
}
