package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import java.io.IOException;
import java.net.Socket;

/** Remora's frames over the TCP connection that was negotiated on the JRMP port: always available. */
public final class SocketTechnology implements Technology {
    private final int maxFrame;
    private final long spinNanos;
    private final long spinMaxNanos;

    /** A technology whose receivers spin a fixed {@code spinNanos} (no adaptation). */
    public SocketTechnology(int maxFrame, long spinNanos) {
        this(maxFrame, spinNanos, spinNanos);
    }

    /**
     * @param maxFrame largest frame accepted from a peer; a bigger length is taken as a malformed frame
     * @param spinNanos how long a receiver polls the socket (yielding the CPU) before it blocks; 0 blocks at once
     * @param spinMaxNanos how long it may poll when its waits have lately lasted longer (twice their length, see
     *     {@link SpinBudget}); at or below {@code spinNanos}, no adaptation
     */
    public SocketTechnology(int maxFrame, long spinNanos, long spinMaxNanos) {
        this.maxFrame = maxFrame;
        this.spinNanos = Math.max(0, spinNanos);
        this.spinMaxNanos = Math.max(0, spinMaxNanos);
    }

    long spinNanos() {
        return spinNanos;
    }

    long spinMaxNanos() {
        return spinMaxNanos;
    }

    @Override
    public String name() {
        return "socket";
    }

    @Override
    public int bit() {
        return Frame.TECH_SOCKET;
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public Link open(Socket socket, boolean client) throws IOException {
        return new SocketLink(socket, maxFrame, spinNanos, spinMaxNanos, Link.READ_FOREVER_MILLIS);
    }
}
