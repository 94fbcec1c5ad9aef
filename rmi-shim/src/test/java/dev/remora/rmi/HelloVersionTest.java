package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.transport.SocketTechnology;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Peers of different Remora protocol versions stay on JRMP, and each side says why once. */
class HelloVersionTest {
    private static final short OTHER = (short) (Frame.VERSION + 1);

    private static byte[] hello(short version, int technologies) {
        FrameBuffer b = new FrameBuffer(Frame.HELLO_LENGTH);
        b.writeInt(Frame.MAGIC);
        b.writeShort(version);
        b.writeByte(technologies);
        b.writeByte(0);
        return java.util.Arrays.copyOf(b.array(), Frame.HELLO_LENGTH);
    }

    @Test
    void aServerOfAnotherVersionIsTakenForVanilla() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept()) {
                    new DataInputStream(s.getInputStream()).readFully(new byte[Frame.HELLO_LENGTH]);
                    s.getOutputStream().write(hello(OTHER, Frame.TECH_SOCKET));
                    s.getInputStream().read(); // until the client closes
                } catch (IOException ignored) {
                    // the client closed first
                }
            });
            t.start();
            Notes notes = new Notes();
            RouterOptions options = RouterOptions.defaults().listener(notes);
            RemoteEndpoint ep = new RemoteEndpoint("127.0.0.1", server.getLocalPort(), options,
                    new Technology[] {new SocketTechnology(1 << 20, 0)});
            assertNull(ep.connection());
            assertTrue(ep.isVanilla());
            assertEquals(1, notes.lines.size(), notes.lines.toString());
            assertTrue(notes.lines.get(0).contains("speaks Remora protocol version " + OTHER + ", this JVM version "
                    + Frame.VERSION), notes.lines.get(0));
            t.join(5000);
        }
    }

    @Test
    void aClientOfAnotherVersionIsOfferedNoTechnology() throws Exception {
        Notes notes = new Notes();
        RemoraRouter router = new RemoraRouter(RouterOptions.defaults().listener(notes)
                .transport(RouterOptions.Transport.SOCKET));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket accepted = server.accept()) {
            client.setSoTimeout((int) TimeUnit.SECONDS.toMillis(5));
            OutputStream out = client.getOutputStream();
            out.write(hello(OTHER, Frame.TECH_SOCKET));
            assertNull(router.accept(null, accepted));
            InputStream in = client.getInputStream();
            byte[] answer = new byte[Frame.HELLO_LENGTH];
            new DataInputStream(in).readFully(answer);
            assertEquals(Frame.MAGIC, FrameBuffer.getInt(answer, 0));
            assertEquals(Frame.VERSION, FrameBuffer.getShort(answer, 4));
            assertEquals(0, answer[6], "no technology for a client of another version");
            assertEquals(-1, in.read(), "the server closes the connection");
            assertEquals(1, notes.lines.size(), notes.lines.toString());
            assertTrue(notes.lines.get(0).contains("speaks Remora protocol version " + OTHER), notes.lines.get(0));
        }
    }

    /**
     * The accept hook turns Nagle off before it reads a byte, as JRMP's {@code ConnectionHandler.run0} does: the
     * hook runs before run0, and the fabric technology's handshake, whose answers each follow a reply of the client,
     * waited out the client's delayed ACK (40 ms, twice) with Nagle on.
     */
    @Test
    void anAcceptedConnectionRunsWithoutNagleFromItsFirstByte() throws Exception {
        RemoraRouter router = new RemoraRouter(RouterOptions.defaults().listener(new Notes())
                .transport(RouterOptions.Transport.SOCKET));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket accepted = server.accept()) {
            assertTrue(!accepted.getTcpNoDelay(), "a fresh accepted socket has Nagle on");
            client.getOutputStream().write(new byte[] {'J', 'R', 'M', 'I', 0, 2, 0x4b, 0});
            Socket handed = router.accept(null, accepted);
            assertTrue(handed != null && handed != accepted, "a JRMP connection is handed back to JRMP, replayed");
            assertTrue(accepted.getTcpNoDelay(), "Nagle off before the first read");
        }
    }
}
