package org.qplab.controller.security;

import java.nio.file.Path;
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
 */
@ConfigurationProperties("qplab.security")
public record SecurityProperties(boolean anonymousRead, List<String> allowedHosts, String adminPassword,
                                 Path adminPasswordFile, Path cliTokenFile) {

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
