package org.qplab.controller.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * qplab.security.*
 *
 * @param anonymousRead      let anyone read (dashboards and GET requests) without logging in; changes still need
 *                           an account. Default false.
 * @param allowedHosts       host names a request's Host header may name, besides loopback names, IP literals, this
 *                           machine's own names and server.address (against DNS rebinding). E.g. the name agents
 *                           and browsers use to reach the controller in a lab.
 * @param adminPassword      the first admin's password (QPLAB_ADMIN_PASSWORD), used only when no account exists yet
 * @param adminPasswordFile  where a generated first admin password is written once (0600) when adminPassword is
 *                           unset; default ~/.local/share/qplab/admin-password
 * @param cliTokenFile       when set, at every start the admin gets a fresh API token named "qplab-cli" (the earlier
 *                           one is revoked), written to this file (0600): how ./qplab signs its own CLI in
 * @param throttle           what guessing costs: failed logins (per account and per address) and unknown API tokens
 *                           (per address) back off exponentially
 */
@ConfigurationProperties("qplab.security")
public record SecurityProperties(boolean anonymousRead, List<String> allowedHosts, String adminPassword,
                                 Path adminPasswordFile, Path cliTokenFile, Throttle throttle) {

    /**
     * qplab.security.throttle.*: the first {@code freeTries} failures of a key cost nothing; each further one makes
     * the key wait {@code firstDelay}, doubling up to {@code maxDelay}; a try while waiting answers 429 with
     * Retry-After and is not checked. A key quiet for {@code forgetAfter} past its wait starts afresh.
     *
     * @param freeTries   failures before any wait; default 5
     * @param firstDelay  the wait after the first failure beyond them; default 1s
     * @param maxDelay    the longest wait; default 5m
     * @param forgetAfter how long a key's failures are remembered once its wait is over; default 30m
     */
    public record Throttle(Integer freeTries, Duration firstDelay, Duration maxDelay, Duration forgetAfter) {
        public Throttle {
            freeTries = freeTries == null ? 5 : freeTries;
            firstDelay = firstDelay == null ? Duration.ofSeconds(1) : firstDelay;
            maxDelay = maxDelay == null ? Duration.ofMinutes(5) : maxDelay;
            forgetAfter = forgetAfter == null ? Duration.ofMinutes(30) : forgetAfter;
            if (freeTries < 0 || firstDelay.isNegative() || maxDelay.compareTo(firstDelay) < 0 || forgetAfter.isNegative()) {
                throw new IllegalArgumentException("qplab.security.throttle: free-tries >= 0, first-delay >= 0, max-delay "
                        + ">= first-delay and forget-after >= 0, got " + freeTries + ", " + firstDelay + ", " + maxDelay
                        + ", " + forgetAfter);
            }
        }
    }

    public SecurityProperties {
        throttle = throttle == null ? new Throttle(null, null, null, null) : throttle;
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
