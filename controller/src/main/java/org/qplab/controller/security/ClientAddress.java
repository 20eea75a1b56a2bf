package org.qplab.controller.security;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import org.springframework.web.server.ServerWebExchange;

/**
 * Where a request comes from, as the throttles count it: an IPv4 address, or the /64 of an IPv6 one (one host
 * usually holds a whole /64, so counting single IPv6 addresses would be no limit at all). The TCP peer, unless
 * server.forward-headers-strategy has Spring take it from a proxy's headers.
 */
final class ClientAddress {

    private ClientAddress() {
    }

    static String of(ServerWebExchange exchange) {
        InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
        return remote == null || remote.getAddress() == null ? "unknown" : of(remote.getAddress());
    }

    static String of(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] prefix = Arrays.copyOf(address.getAddress(), 16);
            Arrays.fill(prefix, 8, 16, (byte) 0);
            try {
                return InetAddress.getByAddress(prefix).getHostAddress() + "/64";
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e); // 16 bytes are always an address
            }
        }
        return address.getHostAddress();
    }
}
