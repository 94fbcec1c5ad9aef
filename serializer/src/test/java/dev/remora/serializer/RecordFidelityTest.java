package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InvalidObjectException;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/**
 * Records as the JDK reads them: a class that became a record (or a record that became a class) between writer
 * and reader reads by field name, and what a canonical constructor throws arrives as the JDK passes it on.
 */
class RecordFidelityTest {

    @Test
    void aClassReadsAsTheRecordItBecameAndBack() throws Exception {
        RoundTrip v2 = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2));
        Object[] values = {new dev.remora.serializer.v1.MigPoint(3, "p", new BigDecimal("1.5")),
            new dev.remora.serializer.v1.MigRec(7, "b"), new dev.remora.serializer.v1.MigPoint(0, null, 4L)};
        for (Object v : values) {
            Object jdk = SemanticsTest.jdkAsV2(v);
            Object ours = v2.roundTrip(v);
            assertEquals(jdk.getClass(), ours.getClass());
            assertEquals(jdk.toString(), ours.toString());
        }
        assertEquals("MigPoint[x=3, label=p, n=1.5, extra=0.0]",
                v2.roundTrip(values[0]).toString(), "the record got the class's fields by name");
    }

    /** Reads v1.Checked(bad) as v2.Checked, whose constructor checks, the JDK's way or Remora's. */
    private static String outcome(boolean jdk, int bad) throws Exception {
        Object v1 = new dev.remora.serializer.v1.Checked(bad);
        try {
            Object read = jdk ? SemanticsTest.jdkAsV2(v1)
                    : new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2)).roundTrip(v1);
            return "read " + read;
        } catch (InvalidObjectException e) {
            return "InvalidObjectException(" + e.getMessage() + ") caused by " + e.getCause();
        } catch (Error e) {
            return e.toString();
        }
    }

    @Test
    void whatTheCanonicalConstructorThrowsArrivesAsInTheJdk() throws Exception {
        for (int v : new int[] {-5, 99, 4}) {
            assertEquals(outcome(true, v), outcome(false, v));
        }
        assertEquals("java.lang.OutOfMemoryError: from the constructor", outcome(false, 99));
    }
}
