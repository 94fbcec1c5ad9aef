package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import java.io.IOException;
import java.net.Socket;

/** Remora's frames over the TCP connection that was negotiated on the JRMP port: always available. */
public final class SocketTechnology implements Technology {
    private final int maxFrame;
    private final long spinNanos;

    /**
     * @param maxFrame largest frame accepted from a peer; a bigger length is taken as a malformed frame
     * @param spinNanos how long a receiver polls the socket (yielding the CPU) before it blocks; 0 blocks at once
     */
    public SocketTechnology(int maxFrame, long spinNanos) {
        this.maxFrame = maxFrame;
        this.spinNanos = Math.max(0, spinNanos);
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
        return new SocketLink(socket, maxFrame, spinNanos);
    }
}
