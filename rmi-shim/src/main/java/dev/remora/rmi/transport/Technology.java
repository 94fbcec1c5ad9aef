package dev.remora.rmi.transport;

import java.io.IOException;
import java.net.Socket;

/**
 * A way two Remora JVMs exchange frames (KaRMI's "technology object", "KaRMI" section 4.3). Each side advertises the
 * technologies it has as bits in the hello on the JRMP port; the best one both have is used. The negotiation socket is
 * handed to {@link #open}: the socket technology keeps using it, a libfabric technology would swap fabric addresses
 * over it and return a fabric endpoint.
 */
public interface Technology {

    /** e.g. "socket", "fabric". */
    String name();

    /** The bit of this technology in the hello ({@code Frame.TECH_*}); the router prefers by its own order. */
    int bit();

    /** Whether this JVM can use it now (a native library loaded, ...). */
    boolean available();

    /** Whether {@link #available()} answers now, without waiting for a probe still running. */
    default boolean ready() {
        return true;
    }

    /** Starts the probe {@link #available()} would wait for, in the background, if it has not started. */
    default void prewarm() {
    }

    /**
     * Whether the client should offer it to the peer at the other end of {@code connected} at all, decided without
     * waiting for {@link #available()} (which may be probing a native library): false leaves it out of the hello.
     */
    default boolean worthOffering(Socket connected) {
        return true;
    }

    /**
     * Builds the link over a negotiated connection.
     *
     * @param socket the connection the hello went over, already past the hello
     * @param client true on the side that opened the connection
     */
    Link open(Socket socket, boolean client) throws IOException;

    /**
     * The JVM is exiting: see {@link dev.remora.rmi.CallRouter#exiting()}. Must not block.
     *
     * @return how many links it released
     */
    default int exiting() {
        return 0;
    }

    /**
     * Whether the peer of {@code socket} runs on this host, as far as its addresses tell: a loopback address, or the
     * peer's address is this side's own. Exact for loopback and for a host talking to its own address; two hosts
     * whose addresses differ are never taken for one.
     */
    static boolean sameHost(Socket socket) {
        java.net.InetAddress remote = socket.getInetAddress();
        java.net.InetAddress local = socket.getLocalAddress();
        return remote != null && (remote.isLoopbackAddress() || remote.equals(local));
    }

    /** What runs under {@code link}, for the statistics: "fabric", "unix" or "socket". */
    static String kind(Link link) {
        if (link instanceof dev.remora.rmi.transport.fabric.FabricLink) {
            return "fabric";
        }
        return link instanceof SocketLink && ((SocketLink) link).overUnixSocket() ? "unix" : "socket";
    }

    /** What runs under {@code link}, for the log. */
    static String describe(Link link) {
        if (link instanceof dev.remora.rmi.transport.fabric.FabricLink) {
            return "fabric (" + ((dev.remora.rmi.transport.fabric.FabricLink) link).provider() + ")";
        }
        return "unix".equals(kind(link)) ? "its socket transport, on a Unix domain socket" : "its socket transport";
    }
}
