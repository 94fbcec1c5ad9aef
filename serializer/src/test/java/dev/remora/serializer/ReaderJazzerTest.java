package dev.remora.serializer;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.OptionalDataException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jazzer harness on the reader (issue 4, "Fuzzing"). The first input byte picks the mode, the rest is the message:
 * 0 = one call on a fresh {@link ReadTypeTable}, 1 = one call on a table warmed up with {@link #WARM_UP}'s types
 * (so type ids of the cached types are valid), 2 = a fast-format stream ({@link FastStreams#newReader}) after
 * its header. The contract checked on every input: the reader returns, or fails with an IOException or
 * ClassNotFoundException that says what was wrong; a runtime exception is accepted only when a deserialized
 * class's own code ({@code readObject}, a record's constructor...) threw it, as under JDK serialization. Never an
 * Error (OutOfMemoryError, StackOverflowError...), never more than {@link #ALLOCATION_BUDGET} plus
 * {@link #ALLOCATION_PER_BYTE} per input byte allocated, never more than {@link #SLOW_INPUT_MS} on one input.
 *
 * <p>{@code mvn test} runs the fuzz test in Jazzer's regression mode: the seeds committed under
 * {@code src/test/resources/dev/remora/serializer/ReaderJazzerTestInputs/readerFailsPolitely/} (real messages, one
 * per graph and mode, plus inputs that once failed), no instrumentation. Real fuzzing:
 * {@code JAZZER_FUZZ=1 mvn -pl serializer -am test -Dtest=ReaderJazzerTest -Dsurefire.failIfNoSpecifiedTests=false}
 * (serializer README, "Fuzzing"). Regenerate the seeds after a format change with
 * {@code -Dremora.jazzer.writeSeeds=true -Dtest=ReaderJazzerTest#seedsAreValidMessages}.
 */
class ReaderJazzerTest {

    static final int CALL_FRESH = 0;
    static final int CALL_WARM = 1;
    static final int STREAM = 2;

    /** Conservative limits: what a hardened RMI endpoint would set (the array guard stays on). */
    static final SerializerOptions OPTIONS = SerializerOptions.DEFAULTS.withMaxDepth(200)
            .withMaxDescriptorBytes(4096).withMaxTypes(256).withBoundArraysByMessage(true);
    /** Per-stream filter: caps arrays, depth and references; {@code jaz.*} is Jazzer's deserialization canary. */
    static final String FILTER = "maxarray=100000;maxdepth=200;maxrefs=100000;!jaz.*";

    /** Allocation allowed per input, whatever its size: class loading and codec generation on first use. */
    static final long ALLOCATION_BUDGET = 64L << 20;
    /** Allocation allowed per input byte on top (the array guard allows 8 bytes of array per byte left). */
    static final long ALLOCATION_PER_BYTE = 1024;
    static final long SLOW_INPUT_MS = 10_000;

    private static final Path SEED_DIR =
            Paths.get("src/test/resources/dev/remora/serializer/ReaderJazzerTestInputs/readerFailsPolitely");
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The call that warms up the type table of mode 1. */
    static final byte[] WARM_UP;

    static {
        try {
            WARM_UP = writeCall(new RemoraObjectOutput(new WriteTypeTable(), OPTIONS), graphs().toArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void readerFailsPolitely(byte[] data) {
        if (data.length == 0) {
            return;
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        Throwable failure = null;
        try {
            read(data);
        } catch (Throwable t) {
            failure = t;
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        long ms = (System.nanoTime() - start) / 1_000_000;
        String problem = failure == null ? null : violation(failure);
        if (problem == null && allocated > ALLOCATION_BUDGET + ALLOCATION_PER_BYTE * data.length) {
            problem = allocated + " bytes allocated for " + data.length + " input bytes";
        }
        if (problem == null && ms > SLOW_INPUT_MS) {
            problem = ms + " ms for " + data.length + " input bytes";
        }
        if (problem != null) {
            throw new AssertionError(problem + " (mode " + (data[0] & 0xFF) % 3 + ", input "
                    + HexFormat.of().formatHex(data, 0, Math.min(data.length, 512))
                    + (data.length > 512 ? "..." : "") + ")", failure);
        }
    }

    /** Reads data as the harness does; returns the objects read, throws what the reader throws. */
    static List<Object> read(byte[] data) throws IOException, ClassNotFoundException {
        int mode = (data[0] & 0xFF) % 3;
        List<Object> objs = new ArrayList<>();
        if (mode == STREAM) {
            try (RemoraObjectInput in = FastStreams.newReader(new ByteArrayInputStream(data, 1, data.length - 1),
                    OPTIONS)) {
                in.setStreamFilter(ObjectInputFilter.Config.createFilter(FILTER));
                while (objs.size() < 64) {
                    objs.add(in.readObject());
                }
            } catch (java.io.EOFException e) {
                if (!"end of Remora stream".equals(e.getMessage())) {
                    throw e;
                }
            }
            return objs;
        }
        ReadTypeTable table = new ReadTypeTable();
        RemoraObjectInput in = new RemoraObjectInput(table, OPTIONS);
        in.setStreamFilter(ObjectInputFilter.Config.createFilter(FILTER));
        if (mode == CALL_WARM) {
            in.beginCall(WARM_UP, 0, WARM_UP.length);
            try {
                while (in.remaining() > 0) {
                    in.readObject();
                }
            } finally {
                in.endCall();
            }
        }
        in.beginCall(data, 1, data.length - 1);
        try {
            while (in.remaining() > 0 && objs.size() < 64) {
                objs.add(in.readObject());
            }
        } finally {
            in.endCall();
        }
        return objs;
    }

    /** Null when t is an allowed way for malformed input to fail, else what is wrong with it. */
    static String violation(Throwable t) {
        if (t instanceof Error) {
            return "an Error escaped: " + t;
        }
        if (t instanceof IOException || t instanceof ClassNotFoundException) {
            // the JDK's OptionalDataException carries eof/length instead of a message
            if (t instanceof OptionalDataException || (t.getMessage() != null && !t.getMessage().isBlank())) {
                return null;
            }
            return t.getClass().getName() + " without a message";
        }
        if ((t instanceof ClassCastException || t instanceof ArrayStoreException)
                && t.getMessage() != null && !t.getMessage().isBlank()) {
            // a field or array element given a value of another type: the JDK's ObjectInputStream throws these
            // too ("cannot assign instance of A to field F of type B"), and so does Remora, by design
            return null;
        }
        if (t instanceof RuntimeException && ReaderFuzzTest.acceptable(t) && thrownByDeserializedClass(t)) {
            return null;
        }
        if (t.getMessage() == null && t.getStackTrace().length == 0) {
            return "unexpected " + t + " with its stack trace omitted by the JIT: run the test JVM with "
                    + "-XX:-OmitStackTraceInFastThrow (serializer/pom.xml does) to see where it came from";
        }
        return "unexpected " + t;
    }

    private static final Set<String> CALLBACKS = Set.of("readObject", "readObjectNoData", "readExternal",
            "readResolve", "validateObject", "<init>");

    /**
     * True when a deserialized class's own code threw t (as it would under the JDK's ObjectInputStream): a
     * callback frame of a class that is not the reader's lies above the reader's innermost frame, or the reader's
     * API, called by such a callback, refused it with an IllegalArgument/IllegalStateException and a message
     * (GetField.get of a missing field...).
     */
    static boolean thrownByDeserializedClass(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        int i = 0;
        while (i < st.length && !isReader(st[i])) {
            if (isCallback(st[i])) {
                return true;
            }
            i++;
        }
        if (!(t instanceof IllegalArgumentException || t instanceof IllegalStateException) || t.getMessage() == null) {
            return false; // an NPE, index or arithmetic exception in the reader's own code is a reader bug
        }
        while (i < st.length && (isReader(st[i]) || isJdkStream(st[i]))) {
            i++;
        }
        return i < st.length && isCallback(st[i]);
    }

    private static boolean isReader(StackTraceElement e) {
        String c = e.getClassName();
        if (!c.startsWith("dev.remora.serializer.")) {
            return false;
        }
        String top = c.substring("dev.remora.serializer.".length()).split("[$/.]")[0];
        return !top.endsWith("Test") && !top.equals("Fixtures");
    }

    private static boolean isJdkStream(StackTraceElement e) {
        return e.getClassName().startsWith("java.io.ObjectInputStream");
    }

    private static boolean isCallback(StackTraceElement e) {
        String c = e.getClassName();
        return CALLBACKS.contains(e.getMethodName()) && !isReader(e) && !c.startsWith("java.lang.invoke.")
                && !c.startsWith("java.lang.reflect.") && !c.startsWith("jdk.internal.")
                && !isJdkStream(e);
    }

    // ---------------------------------------------------------------- seeds

    static List<Object> graphs() {
        List<Object> objs = new ArrayList<>();
        objs.add(Fixtures.Int32.sample());
        objs.add(new Fixtures.Int4Null2());
        objs.add(Fixtures.Tree.build(4));
        objs.add(Fixtures.graph());
        objs.add(new float[] {1, 2, 3});
        objs.add(new Object[] {"a", 1, 2L, 'c', null, new int[] {1}, new String[] {"x", "\u20ac"},
                Fixtures.Tree.class});
        Map<String, Object> m = new HashMap<>();
        m.put("k", new LinkedList<>(List.of(1, 2)));
        m.put("t", new TreeMap<>(Map.of("a", new BigDecimal("1.5"))));
        m.put("enum", java.time.DayOfWeek.MONDAY);
        objs.add(m);
        objs.add(new SemanticsTest.Ext(1, "e"));
        objs.add(new SemanticsTest.Point(3, "p", new double[] {1}));
        return objs;
    }

    static byte[] writeCall(RemoraObjectOutput out, Object... objs) throws IOException {
        out.beginCall();
        for (Object o : objs) {
            out.writeObject(o);
        }
        out.finishCall();
        return Arrays.copyOfRange(out.array(), out.offset(), out.offset() + out.length());
    }

    private static byte[] withMode(int mode, byte[] msg) {
        byte[] b = new byte[msg.length + 1];
        b[0] = (byte) mode;
        System.arraycopy(msg, 0, b, 1, msg.length);
        return b;
    }

    /** Seed name to input: every graph in each call mode, and two streams. */
    static Map<String, byte[]> seeds() throws IOException {
        Map<String, byte[]> seeds = new TreeMap<>();
        List<Object> graphs = graphs();
        for (int i = 0; i < graphs.size(); i++) {
            Object o = graphs.get(i);
            String name = o.getClass().getSimpleName().replace("[]", "Array").toLowerCase(java.util.Locale.ROOT);
            byte[] fresh = writeCall(new RemoraObjectOutput(new WriteTypeTable(), OPTIONS), o, "second", o);
            seeds.put(String.format("call-fresh-%02d-%s", i, name), withMode(CALL_FRESH, fresh));
            RemoraObjectOutput warm = new RemoraObjectOutput(new WriteTypeTable(), OPTIONS);
            writeCall(warm, graphs.toArray()); // the same types, in the same order, as WARM_UP
            seeds.put(String.format("call-warm-%02d-%s", i, name), withMode(CALL_WARM, writeCall(warm, o, o)));
        }
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        try (RemoraObjectOutput out = FastStreams.newWriter(s, OPTIONS)) {
            // objects only: the harness reads objects, and an object read where primitives were written is
            // undetectable in this format (README, "Differences")
            out.writeObject(Fixtures.graph());
            out.writeObject(new int[] {1, 2, 3});
            out.writeObject("tail");
            out.reset();
            out.writeObject(graphs.get(6));
        }
        seeds.put("stream-graph-reset-map", withMode(STREAM, Arrays.copyOfRange(s.toByteArray(),
                FastStreams.HEADER.length, s.size())));
        s.reset();
        try (RemoraObjectOutput out = FastStreams.newWriter(s, OPTIONS)) {
            for (Object o : graphs) {
                out.writeObject(o);
            }
        }
        seeds.put("stream-all", withMode(STREAM, Arrays.copyOfRange(s.toByteArray(), FastStreams.HEADER.length,
                s.size())));
        return seeds;
    }

    /**
     * The committed seeds are still valid messages of the current format (else they only fuzz the first bytes):
     * each reads without any exception. With {@code -Dremora.jazzer.writeSeeds=true} they are written anew first.
     */
    @Test
    void seedsAreValidMessages() throws Exception {
        Map<String, byte[]> seeds = seeds();
        if (Boolean.getBoolean("remora.jazzer.writeSeeds")) {
            Files.createDirectories(SEED_DIR);
            for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
                Files.write(SEED_DIR.resolve(e.getKey()), e.getValue());
            }
        }
        for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
            Path p = SEED_DIR.resolve(e.getKey());
            assertTrue(Files.exists(p), p + " missing: run with -Dremora.jazzer.writeSeeds=true");
            byte[] committed = Files.readAllBytes(p);
            List<Object> objs;
            try {
                objs = read(committed);
            } catch (Exception x) {
                throw new AssertionError(p + " no longer reads (format changed?): regenerate with "
                        + "-Dremora.jazzer.writeSeeds=true", x);
            }
            assertTrue(objs.size() >= 1, p + ": no object read");
            if (!Arrays.equals(committed, e.getValue())) {
                System.out.println("note: " + p + " differs from what the writer produces now (still valid)");
            }
        }
    }

    /** The contract check itself: a reader bug is told apart from a class's own readObject failing. */
    @Test
    void violationTellsReaderBugsFromClassFailures() {
        assertEquals(null, violation(new java.io.StreamCorruptedException("bad tag 99")));
        assertTrue(violation(new java.io.StreamCorruptedException()) != null);
        assertTrue(violation(new OutOfMemoryError("Java heap space")) != null);
        assertTrue(violation(new StackOverflowError()) != null);
        RuntimeException fromReader = new NullPointerException();
        fromReader.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput", "readTop", null, 1),
            new StackTraceElement("dev.remora.serializer.ReaderJazzerTest", "read", null, 1)});
        assertTrue(violation(fromReader) != null);
        RuntimeException fromClass = new IllegalArgumentException("negative x");
        fromClass.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("java.util.HashMap", "readObject", null, 1),
            new StackTraceElement("jdk.internal.reflect.GeneratedMethodAccessor1", "invoke", null, 1),
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput", "readSlot", null, 1)});
        assertEquals(null, violation(fromClass));
        RuntimeException fromGetField = new IllegalArgumentException("no such field");
        fromGetField.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput$Fields", "get", null, 1),
            new StackTraceElement("java.math.BigDecimal", "readObject", null, 1),
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput", "readSlot", null, 1)});
        assertEquals(null, violation(fromGetField));
        RuntimeException readerUnderClass = new NullPointerException();
        readerUnderClass.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput", "readPlain", null, 1),
            new StackTraceElement("java.io.ObjectInputStream", "readObject", null, 1),
            new StackTraceElement("java.util.HashMap", "readObject", null, 1),
            new StackTraceElement("dev.remora.serializer.RemoraObjectInput", "readSlot", null, 1)});
        assertTrue(violation(readerUnderClass) != null, "an NPE in the reader called back by HashMap.readObject");
        assertEquals(null, violation(new ClassCastException("Cannot cast java.lang.String to [D")));
    }
}
