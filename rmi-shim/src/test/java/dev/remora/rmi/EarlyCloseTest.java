package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.transport.SocketTechnology;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * remora.connect.early's idle close: a connection opened early that carried nothing is closed (the server sees it
 * end) and the endpoint opens another for its next call; one that carried a call stays.
 */
class EarlyCloseTest {

    /** Answers each hello with Remora's, choosing the socket transport; reports when each connection ends. */
    private static final class HelloServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        private final Thread acceptor = new Thread(this::accept, "hello-server");

        HelloServer() throws IOException {
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void accept() {
            try {
                for (;;) {
                    Socket s = socket.accept();
                    Thread t = new Thread(() -> serve(s), "hello-connection");
                    t.setDaemon(true);
                    t.start();
                }
            } catch (IOException closed) {
                // the test is over
            }
        }

        private void serve(Socket s) {
            try (Socket c = s) {
                new DataInputStream(c.getInputStream()).readFully(new byte[Frame.HELLO_LENGTH]);
                c.getOutputStream().write(Frame.hello(Frame.TECH_SOCKET).array(), 0, Frame.HELLO_LENGTH);
                events.add("open");
                while (c.getInputStream().read() >= 0) {
                    // frames are not answered here
                }
                events.add("closed");
            } catch (IOException e) {
                events.add("closed");
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private HelloServer server;
    private RemoteEndpoint ep;
    /** The endpoint's early connection, opened before each test. */
    private ClientConnection early;

    @BeforeEach
    void openEarly() throws IOException {
        server = new HelloServer();
        ep = new RemoteEndpoint("127.0.0.1", server.socket.getLocalPort(), RouterOptions.defaults(),
                new Technology[] {new SocketTechnology(1 << 20, 0)});
        early = ep.openEarly();
        assertNotNull(early);
    }

    @AfterEach
    void close() throws IOException {
        early.fail(new IOException("test over"));
        server.close();
    }

    @Test
    void aConnectionThatCarriedNothingIsClosedAndTheNextCallOpensAnother() throws Exception {
        assertEquals("open", server.events.poll(10, TimeUnit.SECONDS));
        assertTrue(early.neverUsed());
        assertTrue(ep.closeIfNeverCalled(early, 15_000));
        assertTrue(early.isDead());
        assertEquals("closed", server.events.poll(10, TimeUnit.SECONDS), "the server's side did not end");
        ClientConnection next = ep.connection();
        assertNotNull(next);
        assertNotSame(early, next);
        assertEquals("open", server.events.poll(10, TimeUnit.SECONDS));
        assertFalse(ep.closeIfNeverCalled(early, 15_000), "not the endpoint's any more");
        next.fail(new IOException("test over"));
    }

    @Test
    void aConnectionThatCarriedACallStays() throws Exception {
        PendingCall pc = new PendingCall();
        early.register(pc); // as a call's send does
        assertFalse(early.neverUsed());
        assertFalse(ep.closeIfNeverCalled(early, 15_000));
        early.unregister(pc);
        assertFalse(ep.closeIfNeverCalled(early, 15_000), "a call was made on it");
        assertFalse(early.isDead());
        assertSame(early, ep.connection());
        assertEquals("open", server.events.poll(10, TimeUnit.SECONDS));
        assertEquals(null, server.events.poll(200, TimeUnit.MILLISECONDS));
    }

    /**
     * The close and a call that took the connection just before it: registered first, the call keeps the connection
     * and is sent on it; the flag the close set for the while is cleared.
     */
    @Test
    void aCallRegisteredBeforeTheCloseLooksIsSentAndKeepsTheConnection() throws Exception {
        PendingCall pc = new PendingCall();
        early.register(pc);
        assertFalse(ep.closeIfNeverCalled(early, 15_000));
        FrameBuffer frame = new FrameBuffer(64);
        Frame.begin(frame, Frame.CALL, (byte) 0, 0);
        Frame.finish(frame);
        early.send(frame); // not refused as "being closed"
        early.unregister(pc);
        assertFalse(early.isDead());
    }

    @Test
    void aSecondEarlyOpenOpensNothing() throws Exception {
        assertEquals(null, ep.openEarly());
        assertSame(early, ep.connection());
    }
}
