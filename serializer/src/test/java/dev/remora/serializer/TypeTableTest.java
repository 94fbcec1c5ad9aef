package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.Serializable;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-connection type cache ("UKA-serialization" section 3.3) and the message layout. */
class TypeTableTest {

    @Test
    void descriptorOnceThenIdAnd32IntCallFitsIn140Bytes() throws Exception {
        RoundTrip rt = new RoundTrip();
        Fixtures.Int32 o = Fixtures.Int32.sample();
        byte[] first = rt.write(o);
        byte[] second = rt.write(o);
        byte[] third = rt.write(o);
        assertTrue(first.length > second.length, "first call carries the descriptor");
        assertEquals(0, second[1], "no new types in the second call");
        assertEquals(second.length, third.length);
        assertTrue(second.length <= 140, "32-int call once the type is known: " + second.length + " bytes");
        assertEquals(1 + 1 + 1 + 1 + 128, second.length); // flags, prelude, tag, type id, 32 ints
        assertEquals(1, rt.out.typeTable().size());
        // the reader learns the type from the first message and keeps it
        assertEquals(o, rt.read(first, 1)[0]);
        assertEquals(o, rt.read(second, 1)[0]);
        assertEquals(o, rt.read(third, 1)[0]);
        assertEquals(1, rt.in.typeTable().size());
        System.out.printf("bytes per call: 32 int %d (first %d, JDK fresh stream %d)%n", second.length,
                first.length, RoundTrip.jdkBytes(o).length);
    }

    @Test
    void callModeResetsTypesOnEveryCall() throws Exception {
        RoundTrip rt = new RoundTrip(SerializerOptions.DEFAULTS.withTypeCache(TypeCacheMode.CALL));
        Fixtures.Int32 o = Fixtures.Int32.sample();
        byte[] first = rt.write(o);
        byte[] second = rt.write(o);
        assertArrayEquals(first, second, "every call describes the type again");
        assertTrue((first[0] & Wire.F_TYPES_RESET) != 0);
        assertEquals(o, rt.read(first, 1)[0]);
        assertEquals(o, rt.read(second, 1)[0]);
        assertEquals(1, rt.in.typeTable().size());
    }

    @Test
    void readAndWriteTablesAreSeparate() throws Exception {
        // two peers: A writes to B. What B reads never shows up in what B writes (Fory issue 3929).
        RoundTrip a = new RoundTrip();
        RoundTrip b = new RoundTrip();
        byte[] fromA = a.write(Fixtures.Int32.sample(), new Fixtures.Int4Null2());
        b.read(fromA, 2);
        assertEquals(2, b.in.typeTable().size());
        assertEquals(0, b.out.typeTable().size());
        byte[] fromB = b.write(new Fixtures.Int4Null2());
        assertEquals(1, fromB[1], "B describes the class itself");
        a.read(fromB, 1);
    }

    static final class Bad implements Serializable {
        Fixtures.Int4Null2 fine = new Fixtures.Int4Null2();
        Object notSerializable = new Object();
    }

    @Test
    void failedCallRollsBackTheTypesItDescribed() throws Exception {
        RoundTrip rt = new RoundTrip();
        assertThrows(NotSerializableException.class, () -> rt.write(new Bad()));
        rt.out.abortCall();
        assertEquals(0, rt.out.typeTable().size());
        assertThrows(NotSerializableException.class, () -> rt.write(new Bad())); // no abortCall: beginCall does it
        // the next call describes Int4Null2 itself, and the peer, which never saw the failed call, reads it
        byte[] m = rt.write(new Fixtures.Int4Null2());
        assertEquals(1, m[1]);
        Fixtures.Int4Null2 r = (Fixtures.Int4Null2) rt.read(m, 1)[0];
        assertEquals(4, r.d);
    }

    @Test
    void senderByteOrderIsConvertedByTheReceiverOnly() throws Exception {
        RoundTrip rt = new RoundTrip();
        Fixtures.Int32 o = Fixtures.Int32.sample();
        rt.read(rt.write(o), 1); // teach the reader the type
        byte[] m = rt.write(o);
        // rewrite the message as a sender of the other byte order would have produced it
        assertEquals(o, rt.read(RoundTrip.otherByteOrder(m, 4), 1)[0]);

        float[] f = {1.5f, -2.25f, Float.MAX_VALUE};
        rt.read(rt.write((Object) f), 1);
        byte[] fm = rt.write((Object) f); // [flags][0][tag][type][len=3][12 bytes]
        assertArrayEquals(f, (float[]) rt.read(RoundTrip.otherByteOrder(fm, 5), 1)[0]);
    }

    @Test
    void byteBufferAndCopyTo() throws Exception {
        RoundTrip rt = new RoundTrip();
        rt.out.beginCall();
        rt.out.writeObject(Fixtures.graph());
        rt.out.writeInt(7);
        rt.out.finishCall();
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(rt.out.length());
        rt.out.copyTo(direct);
        direct.flip();
        rt.in.beginCall(direct);
        assertEquals(Fixtures.graph(), rt.in.readObject());
        assertEquals(7, rt.in.readInt());
        rt.in.endCall();
        assertEquals(0, direct.remaining());
    }

    @Test
    void bytesPerObjectKind() throws IOException {
        RoundTrip rt = new RoundTrip();
        Object[] objs = {null, new Fixtures.Int4Null2(), Fixtures.Int32.sample(), Fixtures.Tree.build(4),
            new float[50], Fixtures.graph()};
        for (Object o : objs) {
            rt.write(o);
            int known = rt.write(o).length;
            System.out.printf("%-30s remora %5d B, JDK %5d B%n", o == null ? "null" : o.getClass().getSimpleName(),
                    known, RoundTrip.jdkBytes(o).length);
            assertTrue(known < RoundTrip.jdkBytes(o).length);
        }
        assertEquals(3, rt.write((Object) null).length);
        assertTrue(Arrays.equals(new byte[] {rt.write((Object) null)[2]}, new byte[] {Wire.T_NULL}));
    }
}
