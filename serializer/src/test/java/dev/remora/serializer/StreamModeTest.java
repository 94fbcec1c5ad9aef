package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.StreamCorruptedException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** remora.oos=fast pieces: the distinct header, stream-mode framing, and JDK stream semantics across frames. */
class StreamModeTest {

    @Test
    void vanillaReaderRejectsTheFastHeaderLoudly() throws Exception {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (ObjectOutputStream out = FastStreams.newWriter(bos)) {
            out.writeObject("hello");
        }
        StreamCorruptedException e = assertThrows(StreamCorruptedException.class,
                () -> new ObjectInputStream(new ByteArrayInputStream(bos.toByteArray())));
        assertEquals("invalid stream header: ACED524E", e.getMessage());
        assertTrue(FastStreams.isFastHeader(bos.toByteArray()));
        assertTrue(!FastStreams.isFastHeader(RoundTrip.jdkBytes("x")));
    }

    /** A stream of another Remora format (the first was 0x4D) is refused with both formats named, never misread. */
    @Test
    void anotherRemoraFormatIsRefusedByName() {
        StreamCorruptedException e = FastStreams.otherFormat(FastStreams.MAGIC, (short) 0x524D);
        assertTrue(e != null && e.getMessage().startsWith("invalid stream header: ACED524D: written by another Remora"
                + " release in its stream format 4D (remora.oos=fast); this one reads format 4E"), String.valueOf(e));
        assertEquals(null, FastStreams.otherFormat(FastStreams.MAGIC, FastStreams.VERSION), "this format");
        assertEquals(null, FastStreams.otherFormat(FastStreams.MAGIC, (short) 5), "the JDK's");
        assertEquals(null, FastStreams.otherFormat((short) 0x1234, (short) 0x524D), "not a serialization stream");
    }

    @Test
    void streamSemanticsMatchTheJdk() throws Exception {
        Fixtures.Person g = Fixtures.graph();
        ByteArrayOutputStream fast = new ByteArrayOutputStream();
        ByteArrayOutputStream jdk = new ByteArrayOutputStream();
        for (ObjectOutputStream out : new ObjectOutputStream[] {FastStreams.newWriter(fast),
            new ObjectOutputStream(jdk)}) {
            out.writeObject(g);
            out.writeInt(42);
            out.writeUTF("between");
            out.writeObject(g); // back reference across frames
            out.reset();
            out.writeObject(g); // a new copy after reset
            out.writeObject(new int[] {1, 2});
            out.close();
        }
        Object[][] results = new Object[2][];
        ObjectInputStream[] ins = {FastStreams.openReader(new ByteArrayInputStream(fast.toByteArray()),
                SerializerOptions.DEFAULTS), new ObjectInputStream(new ByteArrayInputStream(jdk.toByteArray()))};
        for (int k = 0; k < 2; k++) {
            ObjectInputStream in = ins[k];
            Object a = in.readObject();
            int i = in.readInt();
            String s = in.readUTF();
            Object b = in.readObject();
            Object c = in.readObject();
            Object d = in.readObject();
            results[k] = new Object[] {a, i, s, b, c, d};
            assertThrows(EOFException.class, in::readObject);
        }
        Object[] r = results[0];
        assertEquals(g, r[0]);
        assertEquals(42, r[1]);
        assertEquals("between", r[2]);
        assertSame(r[0], r[3]);
        assertNotSame(r[0], r[4]);
        assertEquals(results[1][0] == results[1][3], r[0] == r[3]);
        assertEquals(results[1][0] == results[1][4], r[0] == r[4]);
        assertTrue(fast.size() < jdk.size(), fast.size() + " vs " + jdk.size());
    }

    @Test
    void aReaderForEitherFormat() throws Exception {
        ByteArrayOutputStream fast = new ByteArrayOutputStream();
        try (ObjectOutputStream out = FastStreams.newWriter(fast)) {
            out.writeObject(Fixtures.graph());
        }
        assertEquals(Fixtures.graph(), FastStreams.openEither(new ByteArrayInputStream(fast.toByteArray()),
                SerializerOptions.DEFAULTS).readObject());
        assertEquals(Fixtures.graph(), FastStreams.openEither(new ByteArrayInputStream(
                RoundTrip.jdkBytes(Fixtures.graph())), SerializerOptions.DEFAULTS).readObject());
    }

    @Test
    void malformedFramesFailAsIoExceptions() throws Exception {
        ByteArrayOutputStream fast = new ByteArrayOutputStream();
        try (ObjectOutputStream out = FastStreams.newWriter(fast)) {
            out.writeObject(Fixtures.graph());
            out.writeInt(5);
            out.writeObject(new int[] {1, 2, 3});
            out.writeObject("tail");
        }
        byte[] good = fast.toByteArray();
        java.util.Random rnd = new java.util.Random(7);
        int ok = 0;
        for (int it = 0; it < 3000; it++) {
            byte[] b = ReaderFuzzTest.mutate(good, rnd);
            try (ObjectInputStream in = FastStreams.newReader(new ByteArrayInputStream(b, 4, Math.max(0, b.length - 4)))) {
                in.readObject();
                in.readInt();
                in.readObject();
                in.readObject();
                ok++;
            } catch (Throwable t) {
                assertTrue(ReaderFuzzTest.acceptable(t), () -> "iteration: " + t);
            }
        }
        assertTrue(ok < 3000);
    }
}
