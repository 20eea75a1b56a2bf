package org.qplab.lab;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Run inside a VM ({@code java -cp TEST_CLASSES org.qplab.lab.HostConnectionProbe ADDRESS PORT}): connects
 * to a host service the way an agent does, says who it is and prints the service's one-line answer.
 */
public final class HostConnectionProbe {

    private HostConnectionProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(args[0], Integer.parseInt(args[1])), 10_000);
            socket.setSoTimeout(10_000);
            PrintWriter out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
            out.println("hello from " + InetAddress.getLocalHost().getHostName() + " java " + System.getProperty("java.version"));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            System.out.println("answer: " + in.readLine());
        }
    }
}
