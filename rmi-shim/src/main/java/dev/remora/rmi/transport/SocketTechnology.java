package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import java.io.IOException;
import java.net.Socket;

/** Remora's frames over the TCP connection that was negotiated on the JRMP port: always available. */
public final class SocketTechnology implements Technology {
    private final int maxFrame;

    /** @param maxFrame largest frame accepted from a peer; a bigger length is taken as a malformed frame */
    public SocketTechnology(int maxFrame) {
        this.maxFrame = maxFrame;
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
        return new SocketLink(socket, maxFrame);
    }
}
