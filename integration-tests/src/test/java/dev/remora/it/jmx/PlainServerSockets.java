package dev.remora.it.jmx;

import java.io.IOException;
import java.net.ServerSocket;
import java.rmi.server.RMIServerSocketFactory;

/**
 * A custom RMIServerSocketFactory whose sockets are plain {@code java.net.Socket}s (as the JDK's own JMX tests use, to
 * break connections at will): the objects exported through it are JRMP's, with the agent too.
 */
public final class PlainServerSockets implements RMIServerSocketFactory {
    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return new ServerSocket(port);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlainServerSockets;
    }

    @Override
    public int hashCode() {
        return PlainServerSockets.class.hashCode();
    }
}
