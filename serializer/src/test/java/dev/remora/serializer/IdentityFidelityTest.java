package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Which objects are one object after a round trip, as the JDK decides it (found by the property-based round trips
 * in integration-tests' FidelityIT): every empty string reads as the literal {@code ""}; every boxed primitive
 * written as its own object reads as a new object, never a cached {@code valueOf} instance.
 */
class IdentityFidelityTest {

    @Test
    void emptyStringsReadAsTheLiteralAsInTheJdk() throws Exception {
        String a = new String(new char[0]);
        String b = new String("\uD800".toCharArray(), 0, 0);
        Object[] jdk = RoundTrip.jdkAll(a, b);
        assertSame("", jdk[0], "the JDK's reading");
        assertSame(jdk[0], jdk[1]);

        Object[] r = new RoundTrip().roundTripAll(a, b, new Object[] {a, "", b});
        assertSame("", r[0]);
        assertSame("", r[1]);
        for (Object o : (Object[]) r[2]) {
            assertSame("", o);
        }
    }

    enum Body {
        PLAIN,
        WITH_BODY {
            @SuppressWarnings("unused")
            Object writeReplace() {
                throw new AssertionError("an enum constant's writeReplace is never called");
            }
        }
    }

    @Test
    void enumConstantsWithBodiesAreThemselvesAndTheirMethodsIgnored() throws Exception {
        Object[] r = new RoundTrip().roundTripAll(Body.PLAIN, Body.WITH_BODY, Body.WITH_BODY);
        assertSame(Body.PLAIN, r[0]);
        assertSame(Body.WITH_BODY, r[1]);
        assertSame(Body.WITH_BODY, r[2]);
    }

    @Test
    @SuppressWarnings({"deprecation", "removal"})
    void boxedPrimitivesAreNewObjectsAsInTheJdk() throws Exception {
        Object[] values = {true, (byte) 1, (short) 2, 'c', 3, 4L, 5f, 6d};
        Object[] distinct = {new Boolean(true), new Byte((byte) 1), new Short((short) 2), new Character('c'),
            new Integer(3), new Long(4L), new Float(5f), new Double(6d)};
        RoundTrip rt = new RoundTrip();
        for (int i = 0; i < values.length; i++) {
            Object[] jdk = RoundTrip.jdkAll(values[i], distinct[i], values[i]);
            Object[] r = rt.roundTripAll(values[i], distinct[i], values[i]);
            assertEquals(values[i], r[0]);
            assertNotSame(jdk[0], jdk[1], "the JDK: two objects written, two read");
            assertNotSame(r[0], r[1], () -> "two " + values[0].getClass().getSimpleName() + " objects");
            assertSame(r[0], r[2], "one object written twice is one object read");
            // and not the cached instance a later, separate read would share with it
            Object again = rt.roundTrip(values[i]);
            assertNotSame(r[0], again);
            assertNotSame(values[i], again);
        }
    }
}
