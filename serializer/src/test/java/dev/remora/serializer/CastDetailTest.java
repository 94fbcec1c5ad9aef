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
}
