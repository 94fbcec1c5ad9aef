package dev.remora.rmi.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.serializer.KeptBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FrameBufferTest {

    /** A frame is one array: a tail that would take it past the largest one fails clearly, before anything is sent. */
    @Test
    void aFrameLargerThanAnArrayIsRefused() {
        FrameBuffer f = new FrameBuffer(64).allowTail();
        Frame.begin(f, Frame.CALL, (byte) 0, 5);
        FrameBuffer.Tail small = new ArrayTail(new byte[16], 0, 16);
        FrameBuffer.Tail huge = new FrameBuffer.Tail() {
            @Override
            public int length() {
                return dev.remora.serializer.MessageTooLargeError.MAX_BYTES - 4; // as if pieces added up to it
            }

            @Override
            public int pieces() {
                return small.pieces();
            }

            @Override
            public Object piece(int i) {
                return small.piece(i);
            }

            @Override
            public int pieceOffset(int i) {
                return small.pieceOffset(i);
            }

            @Override
            public int pieceLength(int i) {
                return small.pieceLength(i);
            }

            @Override
            public void copyTo(byte[] dst, int at) {
                small.copyTo(dst, at);
            }
        };
        assertThrows(dev.remora.serializer.MessageTooLargeError.class, () -> f.setTail(huge));
        assertEquals(Frame.HEADER, f.frameLength());
    }

    @Test
    void aTailCountsInTheFrameAndIsDroppedByClear() {
        byte[] payload = new byte[100];
        Arrays.fill(payload, (byte) 7);
        FrameBuffer f = new FrameBuffer(64).allowTail();
        Frame.begin(f, Frame.REPLY, (byte) 0, 5);
        f.setTail(new ArrayTail(payload, 10, 80));
        Frame.finish(f);
        assertEquals(Frame.HEADER, f.length());
        assertEquals(Frame.HEADER + 80, f.frameLength());
        assertEquals(Frame.HEADER + 80, FrameBuffer.getInt(f.array(), 0), "the length field covers the tail");
        f.putInt(Frame.OFF_CALL_ID, 6); // the header may still be patched
        assertThrows(IllegalStateException.class, () -> f.writeByte(1), "nothing may follow the tail");
        Frame.begin(f, Frame.ACK, (byte) 0, 6);
        assertNull(f.tail());
        assertEquals(Frame.HEADER, f.frameLength());
    }

    @Test
    void absorbingTheTailMakesOneContiguousFrame() {
        byte[] payload = {1, 2, 3, 4, 5};
        FrameBuffer f = new FrameBuffer(16).allowTail();
        Frame.begin(f, Frame.CALL, (byte) 0, 1);
        f.setTail(new ArrayTail(payload, 1, 3));
        Frame.finish(f);
        f.absorbTail();
        assertEquals(0, f.tailLength());
        assertEquals(Frame.HEADER + 3, f.length());
        assertArrayEquals(new byte[] {2, 3, 4}, Arrays.copyOfRange(f.array(), Frame.HEADER, f.length()));
        assertEquals(f.length(), FrameBuffer.getInt(f.array(), 0));
    }

    @Test
    void onlyBuffersThatAllowItTakeATail() {
        FrameBuffer f = new FrameBuffer(16);
        assertThrows(IllegalStateException.class, () -> f.setTail(new ArrayTail(new byte[1], 0, 1)));
    }

    @Test
    void aBufferGrownForALargeMessageKeepsItOnlyWeakly() {
        FrameBuffer f = new FrameBuffer(512);
        f.relax();
        assertEquals(512, f.array().length, "a small buffer stays as it is");
        byte[] big = f.prepareReceive(KeptBuffer.KEEP + 1);
        big[KeptBuffer.KEEP] = 7;
        f.relax();
        assertEquals(512, f.array().length, "back to its first size once the message is read");
        assertEquals(0, f.length());
        // the next large message gets an array of its size (the one let go of, unless collected)
        byte[] again = f.prepareReceive(KeptBuffer.KEEP + 1);
        assertEquals(KeptBuffer.KEEP + 1, f.length());
        assertTrue(again.length >= KeptBuffer.KEEP + 1);
        // a large message written grows the buffer, its bytes intact; relaxed after it is sent
        FrameBuffer w = new FrameBuffer(64);
        byte[] data = new byte[KeptBuffer.KEEP * 2];
        Arrays.fill(data, (byte) 3);
        w.write(1);
        w.write(data);
        assertEquals(1 + data.length, w.length());
        assertEquals(3, w.array()[data.length]);
        w.relax();
        assertEquals(64, w.array().length);
        w.write(data);
        assertEquals(data.length, w.length());
        assertArrayEquals(data, Arrays.copyOf(w.array(), data.length));
    }
}
