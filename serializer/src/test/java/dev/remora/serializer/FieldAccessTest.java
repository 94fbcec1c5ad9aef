package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Codecs on {@link FieldAccess}'s Unsafe (this module's default test run exports jdk.internal.misc, as the agent does)
 * and on method handles (the second run, {@code -Dremora.serializer.unsafe=false}): each kind of field, final ones,
 * superclass slots, and a reference of the wrong type refused before it is stored.
 */
class FieldAccessTest {

    static class Base implements Serializable {
        private static final long serialVersionUID = 1L;
        private final long baseId;
        protected String baseName;

        Base(long id, String name) {
            this.baseId = id;
            this.baseName = name;
        }

        long baseId() {
            return baseId;
        }
    }

    static final class Every extends Base {
        private static final long serialVersionUID = 1L;
        private final boolean z;
        private byte b;
        private char c;
        private short s;
        private final int i;
        private long j;
        private float f;
        private double d;
        private final String str;
        private int[] ints;
        private Object any;
        private List<String> list;
        private transient int notSent = 7;

        Every(long id) {
            super(id, "base" + id);
            z = true;
            b = (byte) -3;
            c = '\ud800'; // a lone surrogate
            s = (short) -30000;
            i = Integer.MIN_VALUE + 1;
            j = Long.MAX_VALUE - 1;
            f = Float.NaN;
            d = -0.0;
            str = "every";
            ints = new int[] {1, 2, 3};
            any = Integer.valueOf(42);
            list = new java.util.ArrayList<>(List.of("x", "y"));
        }
    }

    private static boolean unsafeExpected() {
        return !"false".equals(System.getProperty("remora.serializer.unsafe"));
    }

    @Test
    void codecsTakeThePathThisRunExpects() {
        assertEquals(unsafeExpected(), FieldAccess.UNSAFE != null,
                "jdk.internal.misc exported and remora.serializer.unsafe not false: the Unsafe path, else handles");
        for (Slot slot : ClassInfo.of(Every.class).slots) {
            assertNotNull(slot.codec, slot.cl + " has a codec");
            if (unsafeExpected() && Slot.CODEGEN_AFTER > 0) {
                assertTrue(slot.codec instanceof LoopCodec, slot.cl + " starts with the field loop");
                continue;
            }
            boolean unsafe;
            try {
                slot.codec.getClass().getDeclaredField("u");
                unsafe = true;
            } catch (NoSuchFieldException e) {
                unsafe = false;
            }
            assertEquals(unsafeExpected(), unsafe, slot.cl + "'s codec keeps an Unsafe");
        }
    }

    @Test
    void everyKindOfFieldRoundTrips() throws Exception {
        Every e = new Every(99);
        RoundTrip rt = new RoundTrip();
        for (int k = 0; k < 2; k++) { // the second time the class travels as a type id
            Every back = (Every) rt.roundTrip(e);
            assertEquals(99, back.baseId());
            assertEquals("base99", back.baseName);
            assertTrue(back.z);
            assertEquals(e.b, back.b);
            assertEquals(e.c, back.c);
            assertEquals(e.s, back.s);
            assertEquals(e.i, back.i);
            assertEquals(e.j, back.j);
            assertTrue(Float.isNaN(back.f));
            assertEquals(Double.doubleToRawLongBits(e.d), Double.doubleToRawLongBits(back.d));
            assertEquals("every", back.str);
            assertArrayEquals(e.ints, back.ints);
            assertEquals(42, back.any);
            assertEquals(List.of("x", "y"), back.list);
            assertEquals(0, back.notSent);
        }
    }

    @Test
    void aReferenceOfTheWrongTypeIsRefusedWithTheJdksMessage() {
        Every e = new Every(1);
        ClassCastException x = assertThrows(ClassCastException.class,
                () -> Slot.checkAssignable(Integer.valueOf(1), String.class, e, Every.class.getName(), "str"));
        assertEquals("cannot assign instance of java.lang.Integer to field " + Every.class.getName()
                + ".str of type java.lang.String in instance of " + Every.class.getName(), x.getMessage());
        Slot.checkAssignable(null, String.class, e, Every.class.getName(), "str"); // null fits any reference field
        Slot.checkAssignable("s", String.class, e, Every.class.getName(), "str");
    }
}
