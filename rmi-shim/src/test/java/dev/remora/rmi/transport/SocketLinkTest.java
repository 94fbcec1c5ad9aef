package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Frames over a loopback socket pair: whole frames in order, large ones, a malformed one, the peer closing. */
class SocketLinkTest {
    private Socket a;
    private Socket b;

    @BeforeEach
    void pair() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            a = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            b = ss.accept();
        }
    }

    @AfterEach
    void close() throws IOException {
        a.close();
        b.close();
    }

    private static FrameBuffer frame(byte kind, int callId, int payload) {
        FrameBuffer f = new FrameBuffer(64);
        Frame.begin(f, kind, (byte) 0, callId);
        for (int i = 0; i < payload; i++) {
            f.writeByte(i);
        }
        Frame.finish(f);
        return f;
    }

    @Test
    void framesArriveWholeAndInOrder() throws IOException {
        Link tx = new SocketTechnology(1 << 20).open(a, true);
        Link rx = new SocketTechnology(1 << 20).open(b, false);
        tx.send(frame(Frame.CALL, 7, 30));
        tx.send(frame(Frame.REPLY, 8, 200_000)); // larger than the link's read buffer
        tx.send(frame(Frame.PING, 9, 0));
        FrameBuffer into = new FrameBuffer(16);
        int[] seen = new int[3];
        for (int i = 0; i < 3; i++) {
            int n = i;
            FrameBuffer f = rx.receive((kind, id, len) -> {
                seen[n] = id;
                return into;
            }, 5000);
            assertEquals(Frame.HEADER + (i == 0 ? 30 : i == 1 ? 200_000 : 0), f.length());
            if (i == 1) {
                assertEquals((byte) 199_999, f.array()[f.length() - 1]);
            }
        }
        assertEquals(7, seen[0]);
        assertEquals(8, seen[1]);
        assertEquals(9, seen[2]);
    }

    @Test
    void malformedFrameClosesTheLinkWithAClearMessage() throws IOException {
        Link rx = new SocketTechnology(1 << 20).open(b, false);
        FrameBuffer bad = new FrameBuffer(16);
        bad.writeInt(-5);
        bad.writeInt(0x01000000);
        bad.writeInt(1);
        a.getOutputStream().write(bad.array(), 0, bad.length());
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> rx.receive((k, id, len) -> new FrameBuffer(16), 5000));
        assertTrue(e.getMessage().contains("malformed Remora frame"), e.getMessage());
        assertTrue(!rx.isOpen());
    }

    @Test
    void peerCloseIsAnEofAndStillOpenNoticesIt() throws IOException {
        Link rx = new SocketTechnology(1 << 20).open(b, false);
        assertTrue(rx.stillOpen());
        a.close();
        assertThrows(EOFException.class, () -> rx.receive((k, id, len) -> new FrameBuffer(16), 5000));
        assertTrue(!rx.stillOpen());
    }
}
