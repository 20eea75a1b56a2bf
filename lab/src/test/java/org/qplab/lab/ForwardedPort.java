package org.qplab.lab;

/**
 * Where a VM connects to reach a port on this host's 127.0.0.1 (see {@link SoftRoceLab#forwardHostPort}):
 * for an agent in a VM, {@code ws://} + {@link #hostAndPort()} + {@code /agent}.
 */
public record ForwardedPort(String address, int port) {

    public String hostAndPort() {
        return address + ":" + port;
    }

    @Override
    public String toString() {
        return hostAndPort();
    }
}
