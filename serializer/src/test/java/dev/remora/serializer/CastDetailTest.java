package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * A stream value of another class than its field's (a field whose type changed) fails with the JDK's
 * ClassCastException message, naming the value's class, the field, its type and the instance's class (jtreg
 * ClassCastExceptionDetail).
 */
class CastDetailTest {

    @Test
    void theMessageIsTheJdks() throws Exception {
        Object v1 = new dev.remora.serializer.v1.CastSub();
        ClassCastException jdk = assertThrows(ClassCastException.class, () -> SemanticsTest.jdkAsV2(v1));
        RoundTrip v2 = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2));
        ClassCastException ours = assertThrows(ClassCastException.class, () -> v2.roundTrip(v1));
        assertEquals(jdk.getMessage(), ours.getMessage());
    }

    /** What a back reference saw of the object whose field failed, after reading {@code v1} as v2, JDK or Remora. */
    private static String seenAfterFailure(Object v1, boolean jdk) throws Exception {
        Peek.seen = null;
        RoundTrip v2 = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2));
        assertThrows(ClassCastException.class, () -> {
            if (jdk) {
                SemanticsTest.jdkAsV2(v1);
            } else {
                v2.roundTrip(v1);
            }
        });
        return String.valueOf(Peek.seen);
    }

    /**
     * Failure atomicity (jtreg failureAtomicity): the JDK sets no field of a class's slot until all its values are
     * read and checked, nor of any slot when no class below the top one has readObject; an object whose read failed
     * shows its defaults to whoever kept a reference to it.
     */
    @Test
    void anObjectWhoseFieldFailedKeepsItsDefaults() throws Exception {
        for (Object v1 : new Object[] {new dev.remora.serializer.v1.Atomic(), new dev.remora.serializer.v1.AtomicSub()}) {
            String jdk = seenAfterFailure(v1, true);
            assertEquals(jdk, seenAfterFailure(v1, false));
        }
        assertEquals("Atomic(0, null, null)", seenAfterFailure(new dev.remora.serializer.v1.Atomic(), false));
        assertEquals("AtomicSub(0, null, AtomicOk(0, null))",
                seenAfterFailure(new dev.remora.serializer.v1.AtomicSub(), false));
    }
}
