package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions.Serializer;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.rmi.server.ObjID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Call frames that carry a trace context section (Frame.FLAG_CONTEXT), as a client with remora.tracing sends them,
 * at a server with no tracing agent: a well-formed section is skipped, one malformed inside its length is dropped
 * (the call runs, said once), and one that runs past its frame fails that call alone with an exception reply.
 */
class TraceContextFrameTest {

    private static FrameBuffer add(ObjID id, int callId, Consumer<FrameBuffer> section) throws Throwable {
        FrameBuffer call = new FrameBuffer(128);
        Frame.begin(call, Frame.CALL, Frame.FLAG_CONTEXT, callId);
        id.write(call);
        call.writeLong(RmiInternals.methodHash(Svc.class.getMethod("add", int.class, int.class)));
        section.accept(call);
        call.writeInt(40);
        call.writeInt(2);
        Frame.finish(call);
        return call;
    }

    private static void pair(FrameBuffer b, String k, String v) {
        byte[] kb = k.getBytes(StandardCharsets.UTF_8);
        byte[] vb = v.getBytes(StandardCharsets.UTF_8);
        b.writeShort(kb.length);
        b.write(kb);
        b.writeShort(vb.length);
        b.write(vb);
    }

    @Test
    void aServerReadsPastTheSectionAndFailsOnlyACallWhoseSectionRunsPastItsFrame() throws Throwable {
        try (Rig rig = new Rig(Rig.options(Serializer.FAST), Rig.options(Serializer.FAST))) {
            Object ref = rig.export(new Svc.Impl());
            ObjID id = RmiInternals.objId(RmiInternals.liveRef(ref));
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
                Link link = Rig.rawLink(socket);

                // well formed: traceparent and baggage
                link.send(add(id, 1, b -> {
                    FrameBuffer s = new FrameBuffer(64);
                    pair(s, "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
                    pair(s, "baggage", "k=v");
                    b.writeShort(s.length());
                    b.write(s.array(), 0, s.length());
                }));
                FrameBuffer reply = link.receive((kind, callId, length) -> new FrameBuffer(length), 0);
                assertEquals(Frame.REPLY, reply.array()[Frame.OFF_KIND]);
                assertEquals(42, FrameBuffer.getInt(reply.array(), Frame.HEADER));

                // malformed inside its length: a key whose length runs past the section
                link.send(add(id, 2, b -> {
                    b.writeShort(4);
                    b.writeShort(300);
                    b.writeShort(0);
                }));
                reply = link.receive((kind, callId, length) -> new FrameBuffer(length), 0);
                assertEquals(Frame.REPLY, reply.array()[Frame.OFF_KIND], "the call ran without the context");
                assertEquals(42, FrameBuffer.getInt(reply.array(), Frame.HEADER));
                assertTrue(rig.notes().stream().anyMatch(n -> n.startsWith("tracing-malformed")), rig.notes()::toString);

                // a section longer than the rest of the frame: this call fails, the connection serves the next
                FrameBuffer bad = new FrameBuffer(128);
                Frame.begin(bad, Frame.CALL, Frame.FLAG_CONTEXT, 3);
                id.write(bad);
                bad.writeLong(RmiInternals.methodHash(Svc.class.getMethod("add", int.class, int.class)));
                bad.writeShort(1000);
                bad.writeInt(40);
                Frame.finish(bad);
                link.send(bad);
                reply = link.receive((kind, callId, length) -> new FrameBuffer(length), 0);
                assertEquals(Frame.EXCEPTION, reply.array()[Frame.OFF_KIND]);
                assertEquals(3, FrameBuffer.getInt(reply.array(), Frame.OFF_CALL_ID));

                link.send(add(id, 4, b -> b.writeShort(0)));
                reply = link.receive((kind, callId, length) -> new FrameBuffer(length), 0);
                assertEquals(Frame.REPLY, reply.array()[Frame.OFF_KIND], "the connection still serves calls");
                assertEquals(42, FrameBuffer.getInt(reply.array(), Frame.HEADER));
            }
        }
    }
}
