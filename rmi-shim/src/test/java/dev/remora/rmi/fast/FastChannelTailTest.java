package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.TypeCacheMode;
import org.junit.jupiter.api.Test;

/** Which messages become a frame's tail: long ones, to frames that allow it; the rest are copied in. */
class FastChannelTailTest {

    /** Writes value into f and leaves tx's write lock held, as until a frame is sent; {@link #read} releases it. */
    private static FrameBuffer write(FastChannel tx, FrameBuffer f, Object value) throws Exception {
        Frame.begin(f, Frame.REPLY, Frame.FLAG_FAST, 1);
        tx.lockWrite();
        RmiFastOutput o = tx.beginWrite();
        o.writeObject(value);
        tx.finishWrite(f);
        Frame.finish(f);
        return f;
    }

    /** "Sends" f (its tail copied in, then tx's write lock released) and reads it back with rx. */
    private static Object read(FastChannel tx, FastChannel rx, FrameBuffer f) throws Exception {
        FrameBuffer whole = new FrameBuffer(16);
        try {
            f.absorbTail();
        } finally {
            tx.unlockWrite();
        }
        byte[] d = whole.prepareReceive(f.length());
        System.arraycopy(f.array(), 0, d, 0, f.length());
        whole.position(Frame.HEADER);
        RmiFastInput in = rx.beginRead(whole, false, null, null);
        try {
            return in.readObject();
        } finally {
            rx.endRead(in);
        }
    }

    @Test
    void longMessagesBecomeTheTailOfFramesThatAllowIt() throws Exception {
        FastChannel tx = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel rx = new FastChannel(TypeCacheMode.CONNECTION);
        byte[] big = new byte[FastChannel.TAIL_MIN];
        big[7] = 42;
        FrameBuffer f = write(tx, new FrameBuffer(64).allowTail(), big);
        assertEquals(Frame.HEADER, f.length(), "nothing copied into the frame");
        assertEquals(f.frameLength(), FrameBuffer.getInt(f.array(), 0));
        assertNotNull(f.tail(), "the message stays in the writer's buffer as the tail");
        assertArrayEquals(big, (byte[]) read(tx, rx, f));

        FrameBuffer small = write(tx, new FrameBuffer(64).allowTail(), new byte[100]);
        assertNull(small.tail(), "short messages are copied");
        assertArrayEquals(new byte[100], (byte[]) read(tx, rx, small));

        FrameBuffer plain = write(tx, new FrameBuffer(64), big);
        assertNull(plain.tail(), "a frame that allows no tail gets a copy");
        assertArrayEquals(big, (byte[]) read(tx, rx, plain));
    }

    @Test
    void longPrimitiveArraysAreNotCopiedByTheWriter() throws Exception {
        FastChannel tx = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel rx = new FastChannel(TypeCacheMode.CONNECTION);
        int[] ints = new int[FastChannel.TAIL_MIN / 4];
        ints[5] = 77;
        double[] small = {1.5, 2.5};
        Object[] value = {"a", ints, small, ints};
        FrameBuffer f = write(tx, new FrameBuffer(64).allowTail(), value);
        FrameBuffer.Tail t = f.tail();
        assertEquals(3, t.pieces(), "writer's bytes, the int[] itself, writer's bytes");
        assertSame(ints, t.piece(1));
        assertEquals(f.frameLength(), FrameBuffer.getInt(f.array(), 0));
        Object[] back = (Object[]) read(tx, rx, f);
        assertArrayEquals(ints, (int[]) back[1]);
        assertSame(back[1], back[3]);
        assertArrayEquals(small, (double[]) back[2]);
        assertThrows(IllegalStateException.class, t::pieces, "once sent (lock released) the tail is gone");

        FrameBuffer plain = write(tx, new FrameBuffer(64), value);
        assertNull(plain.tail(), "a frame that allows no tail gets a copy of every piece");
        assertArrayEquals(ints, (int[]) ((Object[]) read(tx, rx, plain))[1]);
    }
}
