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

    /** The bit of this technology in the hello ({@code Frame.TECH_*}); a higher bit is preferred. */
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

    /** The JVM is exiting: see {@link dev.remora.rmi.CallRouter#exiting()}. Must not block. */
    default void exiting() {
    }
}
