package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import dev.remora.rmi.jdk.RmiInternals;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.ObjID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JRMP's timeouts on Remora's paths: {@code sun.rmi.transport.tcp.readTimeout} on accepted connections (a client that
 * says nothing is dropped, before and after Remora's hello; a connection with a call running is not idle), and
 * {@code sun.rmi.transport.tcp.handshakeTimeout} on a client's hello. The rig's routers get the values as options (the
 * JDK reads the properties once per JVM; by default Remora uses the JDK's own values).
 */
class TimeoutsTest {
    private static final int READ_TIMEOUT = 400;

    public interface Napper extends Remote {
        int nap(int millis) throws RemoteException;
    }

    static final class NapperImpl implements Napper {
        @Override
        public int nap(int millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return millis;
        }
    }

    /** Milliseconds until the server closed {@code s}; fails after 10 s. */
    private static long closedAfter(Socket s) throws Exception {
        long start = System.nanoTime();
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // a Remora hello answer, if any
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept a silent connection open for 10 s");
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    @Timeout(30)
    void aClientThatSaysNothingIsDroppedAfterTheReadTimeout() throws Exception {
        try (Rig rig = new Rig(Rig.options(Serializer.FAST),
                Rig.options(Serializer.FAST).readTimeoutMillis(READ_TIMEOUT))) {
            try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
                long ms = closedAfter(silent);
                assertTrue(ms >= READ_TIMEOUT - 50 && ms < 5000, "closed after " + ms + " ms");
            }
            // the same after Remora's hello: the connection is Remora's now, and idle
            try (Socket hello = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
                hello.getOutputStream().write(dev.remora.rmi.wire.Frame.hello(dev.remora.rmi.wire.Frame.TECH_SOCKET)
                        .array(), 0, dev.remora.rmi.wire.Frame.HELLO_LENGTH);
                long ms = closedAfter(hello);
                assertTrue(ms >= READ_TIMEOUT - 50 && ms < 5000, "closed after " + ms + " ms");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Dispatch.class)
    @Timeout(60)
    void callsLongerThanTheReadTimeoutAreAnsweredAndAnIdleConnectionIsClosed(RouterOptions.Dispatch d)
            throws Throwable {
        try (Rig rig = new Rig(Rig.options(Serializer.FAST),
                Rig.options(Serializer.FAST).readTimeoutMillis(READ_TIMEOUT).dispatch(d))) {
            Object ref = rig.export(new NapperImpl());
            Method nap = Napper.class.getMethod("nap", int.class);
            assertEquals(3 * READ_TIMEOUT, rig.result(ref, nap, 3 * READ_TIMEOUT), "a long call is answered");
            assertEquals(1, rig.accepted().size());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!rig.accepted().get(0).isClosed() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(rig.accepted().get(0).isClosed(), "the idle connection was closed by the server");
            Thread.sleep(1200); // the client checks a connection idle for a second before it uses it again
            assertEquals(1, rig.result(ref, nap, 1), "the next call reconnects");
            assertEquals(2, rig.accepted().size(), rig.notes::toString);
        }
    }

    @Test
    @Timeout(30)
    void aHelloUnansweredForTheHandshakeTimeoutLeavesTheEndpointToJrmp() throws Throwable {
        try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = mute.accept()) {
                    Thread.sleep(20_000); // reads nothing, answers nothing
                } catch (Exception ignored) {
                    // closed by the test
                }
            });
            t.setDaemon(true);
            t.start();
            dev.remora.rmi.RemoraRouter client = new dev.remora.rmi.RemoraRouter(RouterOptions.defaults()
                    .transport(RouterOptions.Transport.SOCKET).probeTimeoutMillis(10_000).handshakeTimeoutMillis(300));
            Method nap = Napper.class.getMethod("nap", int.class);
            Object ref = Rig.refTo("127.0.0.1", mute.getLocalPort(), new ObjID());
            long start = System.nanoTime();
            assertNull(client.invoke(ref, null, nap, new Object[] {1}, RmiInternals.methodHash(nap)),
                    "left to JRMP");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms >= 250 && ms < 3000, "gave up after " + ms + " ms, not the probe's 10 s");
        }
    }
}
