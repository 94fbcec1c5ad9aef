package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trace context section of a call frame (remora.tracing): written, read back, and bounded. */
class TraceContextTest {

    private static FrameBuffer received(FrameBuffer written) {
        FrameBuffer in = new FrameBuffer(written.length());
        System.arraycopy(written.array(), 0, in.prepareReceive(written.length()), 0, written.length());
        in.position(0);
        return in;
    }

    @Test
    void pairsComeBackAsWrittenAndTheArgumentsFollow() throws Exception {
        String[] pairs = {"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "baggage", "user=ann,region=\u00e9t\u00e9"};
        FrameBuffer out = new FrameBuffer(64);
        assertTrue(TraceContext.write(out, pairs));
        out.writeInt(42); // the arguments
        FrameBuffer in = received(out);
        assertArrayEquals(pairs, TraceContext.read(in));
        assertEquals(42, in.readInt(), "the position is after the section");
    }

    @Test
    void aContextTooLargeIsNotWritten() {
        String[] pairs = {"k", "x".repeat(TraceContext.MAX_BYTES)};
        FrameBuffer out = new FrameBuffer(64);
        assertFalse(TraceContext.write(out, pairs));
        assertEquals(0, out.length(), "nothing written");
    }

    @Test
    void atMostMaxPairsAreWritten() throws Exception {
        List<String> many = new ArrayList<>();
        for (int i = 0; i < TraceContext.MAX_PAIRS + 5; i++) {
            many.add("k" + i);
            many.add("v" + i);
        }
        FrameBuffer out = new FrameBuffer(64);
        assertTrue(TraceContext.write(out, many.toArray(new String[0])));
        assertEquals(2 * TraceContext.MAX_PAIRS, TraceContext.read(received(out)).length);
    }

    @Test
    void aSectionMalformedInsideItsLengthIsDroppedAndSkipped() throws Exception {
        FrameBuffer out = new FrameBuffer(64);
        out.writeShort(5); // 5 bytes: a string of 2 bytes, then one byte where a length belongs
        out.writeShort(2);
        out.write(new byte[] {'a', 'b', 9});
        out.writeInt(7);
        FrameBuffer in = received(out);
        assertNull(TraceContext.read(in));
        assertEquals(7, in.readInt(), "the arguments are still found");

        out = new FrameBuffer(64);
        out.writeShort(3); // a key without its value
        out.writeShort(1);
        out.write('k');
        out.writeInt(8);
        in = received(out);
        assertNull(TraceContext.read(in), "an odd number of strings");
        assertEquals(8, in.readInt());

        out = new FrameBuffer(64);
        out.writeShort(4); // a string whose length runs past the section
        out.writeShort(100);
        out.writeShort(0);
        out.writeInt(9);
        in = received(out);
        assertNull(TraceContext.read(in));
        assertEquals(9, in.readInt());
    }

    @Test
    void aSectionLongerThanItsFrameFailsTheCall() {
        FrameBuffer out = new FrameBuffer(64);
        out.writeShort(500);
        out.writeShort(1);
        out.write('k');
        EOFException e = assertThrows(EOFException.class, () -> TraceContext.read(received(out)));
        assertTrue(e.getMessage().contains("runs past its frame"), e.getMessage());
    }

    @Test
    void withoutOpenTelemetrysAgentThereIsNoContext() {
        Notes notes = new Notes();
        assertNull(TraceContext.find(notes));
        assertTrue(notes.lines.isEmpty(), notes.lines::toString);
    }
}
