package org.qplab.controller.security;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The host names a request may name in its Host header. DNS rebinding needs a name the attacker's DNS answers
 * with this controller's address, so IP literals are always fine; names must be loopback names, this machine's
 * own names, server.address, or listed in qplab.security.allowed-hosts.
 */
@Component
public class HostNames {

    private static final Logger log = LoggerFactory.getLogger(HostNames.class);
    private final Set<String> names = new HashSet<>(Set.of("localhost", "localhost.localdomain", "ip6-localhost"));

    public HostNames(SecurityProperties properties, @Value("${server.address:}") String address) {
        properties.allowedHosts().forEach(n -> names.add(n.toLowerCase(Locale.ROOT)));
        if (!address.isBlank()) {
            names.add(address.toLowerCase(Locale.ROOT));
        }
        try {
            InetAddress local = InetAddress.getLocalHost();
            names.add(local.getHostName().toLowerCase(Locale.ROOT));
            names.add(local.getCanonicalHostName().toLowerCase(Locale.ROOT));
        } catch (java.io.IOException e) {
            log.debug("this machine's name is unknown: {}", e.toString());
        }
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                nic.inetAddresses().forEach(a -> names.add(a.getHostAddress().toLowerCase(Locale.ROOT)));
            }
        } catch (java.io.IOException e) {
            log.debug("no network interfaces listed: {}", e.toString());
        }
    }

    public boolean allowed(String host) {
        if (host == null || host.isEmpty()) {
            return true; // HTTP/1.0 without a Host header: nothing a browser sends
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        return names.contains(h) || h.endsWith(".localhost") || ipLiteral(h);
    }

    private static boolean ipLiteral(String h) {
        if (h.startsWith("[") && h.endsWith("]")) {
            return h.substring(1, h.length() - 1).matches("[0-9a-f:.%a-z]+");
        }
        return h.matches("(\\d{1,3}\\.){3}\\d{1,3}") || (h.contains(":") && h.matches("[0-9a-f:.]+"));
    }
}
