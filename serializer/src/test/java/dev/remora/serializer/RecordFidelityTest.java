package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        for (int v : new int[] {-5, 99, 98, 4}) {
            assertEquals(outcome(true, v), outcome(false, v));
        }
        assertEquals("java.lang.OutOfMemoryError: from the constructor", outcome(false, 99));
        assertEquals("java.lang.StackOverflowError: thrown by the constructor", outcome(false, 98));
    }

    /** A graph deeper than the reading thread's stack: Remora's clear exception, not the thread's overflow. */
    @Test
    void aGraphTooDeepForTheStackIsAnInvalidObjectException() throws Exception {
        Object[] chain = null;
        for (int i = 0; i < 200_000; i++) {
            chain = new Object[] {chain};
        }
        Object[] deep = chain;
        byte[][] msg = new byte[1][];
        RoundTrip rt = new RoundTrip(SerializerOptions.DEFAULTS.withMaxDepth(Integer.MAX_VALUE));
        Throwable[] failure = new Throwable[1];
        Thread writer = new Thread(null, () -> {
            try {
                msg[0] = rt.write((Object) deep);
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "deep-writer", 1L << 30);
        writer.start();
        writer.join();
        assertEquals(null, failure[0]);
        // A 1 MB stack, the JVM's default. On 256 KB, while the reader was still being compiled, its stack ran out
        // with a trace of 444 frames, before the graph was OVERFLOW_DEPTH deep: overflowed() cannot tell that from a
        // StackOverflowError a class throws near the top of a graph (passed on, as the JDK does). Up to 9 of 150 such
        // reads in one JVM came out so (a full CI run failed on it once); none of 150 on 1 MB.
        Thread reader = new Thread(null, () -> {
            try {
                rt.in.beginCall(msg[0], 0, msg[0].length);
                rt.in.readObject();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "reader", 1 << 20);
        reader.start();
        reader.join();
        assertEquals(InvalidObjectException.class, failure[0] == null ? null : failure[0].getClass(),
                () -> String.valueOf(failure[0]));
        String m = failure[0].getMessage();
        assertTrue(m.matches("object graph too deep for this thread's stack: it ran out [1-9][0-9]* objects deep; "
                + "a larger thread stack \\(-Xss\\) lets such a graph through"), m);
    }

    /**
     * What tells the JVM's overflow of a deep graph from a StackOverflowError a class threw: a message, or a short
     * trace near the top of the graph. A JVM overflow once came with a trace shorter than 512 frames in a full test
     * run, so the graph's depth at the time counts too.
     */
    @Test
    void anOverflowIsToldByItsMessageTraceAndTheGraphsDepth() {
        StackOverflowError thrown = new StackOverflowError("thrown by the constructor");
        assertEquals(false, RemoraObjectInput.overflowed(thrown, 100_000));
        StackOverflowError shortTrace = new StackOverflowError();
        StackTraceElement[] frames = new StackTraceElement[100];
        java.util.Arrays.fill(frames, new StackTraceElement("C", "m", "C.java", 1));
        shortTrace.setStackTrace(frames);
        assertEquals(false, RemoraObjectInput.overflowed(shortTrace, 3));
        assertEquals(true, RemoraObjectInput.overflowed(shortTrace, RemoraObjectInput.OVERFLOW_DEPTH));
        StackOverflowError noTrace = new StackOverflowError();
        noTrace.setStackTrace(new StackTraceElement[0]);
        assertEquals(true, RemoraObjectInput.overflowed(noTrace, 0));
    }
}
