package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.Serializable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The field loop a slot starts with on the internal Unsafe ({@link LoopCodec}): same bytes as the generated codec it
 * makes way for, the same checks on what it reads, and the swap after {@code remora.serializer.codegen.after} objects.
 * Runs in the default test run (Unsafe, generation after 1000 objects); skipped in the handles and generated runs.
 */
class LoopCodecTest {

    static class Mixed implements Serializable {
        private static final long serialVersionUID = 1L;
        boolean z = true;
        byte b = -7;
        char c = '\uD800'; // a lone surrogate as a char field: bits, not text
        short s = -300;
        int i = 0x01020304;
        float f = Float.intBitsToFloat(0x7fc00001); // a NaN with a payload
        long j = Long.MIN_VALUE + 5;
        double d = -0.0;
        final String str;
        Object any = List.of(1, 2);
        Number num = 7;
        Mixed self;

        Mixed(String str) {
            this.str = str;
            this.self = this;
        }
    }

    /** A class of its own per test, so the count of objects its slot has seen is this test's. */
    static class Counted implements Serializable {
        private static final long serialVersionUID = 1L;
        int n;
        String name;

        Counted(int n) {
            this.n = n;
            this.name = "c" + n;
        }
    }

    /** Only int fields: a sender of the other byte order is simulated by reversing each 4-byte group. */
    static class Ints implements Serializable {
        private static final long serialVersionUID = 1L;
        int a = 0x01020304;
        int b = -2;
        int c = Integer.MIN_VALUE;
        int d = 0x7f00ff01;
    }

    private static void assumeLoop() {
        assumeTrue(FieldAccess.UNSAFE != null && Slot.CODEGEN_AFTER > 0, "this run generates codecs at once");
    }

    private static void assertSame(Mixed e, Mixed back) {
        assertTrue(back.z);
        assertEquals(e.b, back.b);
        assertEquals(e.c, back.c);
        assertEquals(e.s, back.s);
        assertEquals(e.i, back.i);
        assertEquals(Float.floatToRawIntBits(e.f), Float.floatToRawIntBits(back.f));
        assertEquals(e.j, back.j);
        assertEquals(Double.doubleToRawLongBits(e.d), Double.doubleToRawLongBits(back.d));
        assertEquals(e.str, back.str);
        assertEquals(e.any, back.any);
        assertEquals(e.num, back.num);
        assertTrue(back.self == back, "a back reference to the object itself");
    }

    @Test
    void theLoopAndTheGeneratedCodecWriteTheSameBytes() throws Exception {
        assumeLoop();
        Slot slot = ClassInfo.of(Mixed.class).slots[0];
        assertTrue(slot.codec instanceof LoopCodec);
        Mixed m = new Mixed("fields");
        byte[] byLoop = new RoundTrip().write(m);
        RoundTrip rt = new RoundTrip();
        for (int k = 0; k < Slot.CODEGEN_AFTER && slot.codec instanceof LoopCodec; k++) {
            assertSame(m, (Mixed) rt.roundTrip(m));
        }
        assertFalse(slot.codec instanceof LoopCodec, "generated after " + Slot.CODEGEN_AFTER + " objects");
        assertTrue(slot.codec.getClass().isHidden());
        byte[] byGenerated = new RoundTrip().write(m);
        assertArrayEquals(byLoop, byGenerated);
        assertSame(m, (Mixed) new RoundTrip().read(byLoop, 1)[0]); // the generated codec reads what the loop wrote
    }

    @Test
    void bothCodecsReadASenderOfTheOtherByteOrder() throws Exception {
        assumeLoop();
        Slot slot = ClassInfo.of(Ints.class).slots[0];
        RoundTrip rt = new RoundTrip();
        Ints o = new Ints();
        for (int round = 0; round < 2; round++) { // the loop, then the generated codec
            rt.read(rt.write(o), 1); // teach the reader the type: the next message is the header and four ints
            byte[] swapped = RoundTrip.otherByteOrder(rt.write(o), 4);
            assertEquals(round == 0, slot.codec instanceof LoopCodec);
            Ints back = (Ints) rt.read(swapped, 1)[0];
            assertEquals(o.a, back.a);
            assertEquals(o.b, back.b);
            assertEquals(o.c, back.c);
            assertEquals(o.d, back.d);
            for (int k = 0; k < Slot.CODEGEN_AFTER && slot.codec instanceof LoopCodec; k++) {
                rt.roundTrip(o);
            }
        }
    }

    @Test
    void theSlotSwapsAfterItsCountOfObjectsWrittenAndRead() throws Exception {
        assumeLoop();
        Slot slot = ClassInfo.of(Counted.class).slots[0];
        long before = SerializerStats.codecsGenerated();
        RoundTrip rt = new RoundTrip();
        int half = Slot.CODEGEN_AFTER / 2; // each round trip counts one write and one read
        Object[] batch = new Object[half - 1];
        for (int k = 0; k < batch.length; k++) {
            batch[k] = new Counted(k);
        }
        Object[] back = rt.roundTripAll(batch);
        assertEquals("c" + (half - 2), ((Counted) back[half - 2]).name);
        assertTrue(slot.codec instanceof LoopCodec, "still the loop after " + 2 * (half - 1) + " objects");
        rt.roundTripAll(new Counted(-1), new Counted(-2));
        assertFalse(slot.codec instanceof LoopCodec, "generated once the count is reached");
        assertEquals(before + 1, SerializerStats.codecsGenerated());
        assertEquals(-2, ((Counted) rt.roundTrip(new Counted(-2))).n);
    }
}
