package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client endpoint in this JVM, an echo server in another, over shm. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TwoProcessShmIT {
    private static final long TEN_SECONDS = 10_000_000_000L;

    @BeforeEach
    void requireShm() {
        FabricTestSupport.assumeProvider("shm");
    }

    private static void roundTrip(FabricEndpoint ep, long peer, ByteBuffer msg) throws IOException {
        ep.send(peer, msg);
        assertEquals(msg.remaining(), ep.receive(TEN_SECONDS), "echo length");
        assertEquals(msg.duplicate(), ep.received(), "echo content of " + msg.remaining() + " bytes");
    }

    @Test
    void pingPongLargeMessageAndOrderlyExit() throws Exception {
        try (FabricEndpoint ep = FabricEndpoint.open("shm");
                ChildJvm.EchoServer server = new ChildJvm.EchoServer(ep, List.of(), "shm")) {
            ByteBuffer small = FabricTestSupport.pattern(64, 1);
            for (int i = 0; i < 1_000; i++) {
                roundTrip(ep, server.peer, small);
            }
            ByteBuffer medium = FabricTestSupport.pattern(100_000, 2);
            for (int i = 0; i < 100; i++) {
                roundTrip(ep, server.peer, medium);
            }
            roundTrip(ep, server.peer, FabricTestSupport.pattern(100 * 1024 * 1024, 3));
            roundTrip(ep, server.peer, small);
            ep.send(server.peer, ByteBuffer.allocateDirect(0)); // tells the server to exit
            assertTrue(server.process.waitFor(10, TimeUnit.SECONDS), "server did not exit");
            assertEquals(0, server.process.exitValue());
        }
    }

    @Test
    void aDyingPeerNeverCrashesThisJvm() throws Exception {
        FabricOptions options = FabricOptions.defaults().withSendTimeoutNanos(1_000_000_000L);
        try (FabricEndpoint ep = FabricEndpoint.open("shm", options);
                ChildJvm.EchoServer server = new ChildJvm.EchoServer(ep, List.of(), "shm")) {
            roundTrip(ep, server.peer, FabricTestSupport.pattern(64, 1));
            server.process.destroyForcibly();
            assertTrue(server.process.waitFor(10, TimeUnit.SECONDS));
            assertEquals(FabricEndpoint.TIMEOUT, ep.receive(200_000_000L));
            // a message that needs the peer to take it (not injectable) fails after the send timeout
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class,
                    () -> ep.send(server.peer, FabricTestSupport.pattern(1024 * 1024, 4)));
            assertTrue(e.getMessage().startsWith("fi_"), e.getMessage());
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "send to a dead peer took too long");
            // the endpoint now refuses further use with the same explanation, and closes cleanly
            IOException again = assertThrows(IOException.class,
                    () -> ep.send(server.peer, FabricTestSupport.pattern(64, 5)));
            assertTrue(again.getMessage().contains("close it"), again.getMessage());
        }
        // and a fresh endpoint works afterwards
        try (FabricEndpoint ep = FabricEndpoint.open("shm");
                ChildJvm.EchoServer server = new ChildJvm.EchoServer(ep, List.of(), "shm")) {
            roundTrip(ep, server.peer, FabricTestSupport.pattern(100_000, 6));
        }
    }
}
