package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Every char sequence a Java string can hold comes back unchanged, as the JDK's modified UTF-8 gives it back: lone
 * high and low surrogates, reversed pairs, NUL, supplementary pairs, every one of the 65536 chars, strings of more
 * than 65535 bytes, in every place the serializer writes a string (values, fields, arrays, writeUTF in a class's
 * writeObject, enum-like names, class and field names in type descriptors), in both byte orders.
 */
class StringFidelityTest {

    /** Strings that a charset-based codec changes; each must survive exactly. */
    static List<String> hardStrings() {
        List<String> l = new ArrayList<>();
        l.add("a\uD800b");                 // lone high surrogate
        l.add("\uDC00");                   // lone low surrogate alone
        l.add("\uDBFF");                   // last high surrogate, alone
        l.add("x\uDC00\uD800y");           // a pair in the wrong order
        l.add("\uD800");
        l.add("\uD800\uD800\uDC00");       // high, then a valid pair
        l.add("\uD83D\uDE00 ok");          // a valid supplementary pair (U+1F600)
        l.add("nul\u0000inside\u0000");
        l.add("\u0000");
        l.add("\u00FF\u0100");             // the Latin-1 edge, both coders
        l.add("\uFFFF\uFFFE\uFEFF");       // noncharacters and a BOM
        l.add("");
        StringBuilder every = new StringBuilder(65536);
        for (int c = 0; c < 65536; c++) {
            every.append((char) c);
        }
        l.add(every.toString());           // every char, 190 KB in modified UTF-8: past writeUTF's 64 KB
        Random r = new Random(42);
        l.add(randomChars(r, 1000));
        l.add(randomChars(r, 100_000));
        return l;
    }

    static String randomChars(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) r.nextInt(65536);
        }
        return new String(c);
    }

    @Test
    void everyCharSequenceSurvivesAsAValue() throws Exception {
        RoundTrip rt = new RoundTrip();
        for (String s : hardStrings()) {
            assertEquals(s, rt.roundTrip(s), () -> "value " + escape(s));
            assertEquals(s, RoundTrip.jdk(s), "the JDK keeps it too");
        }
    }

    @Test
    void everyCharSequenceSurvivesInArraysAndFieldsAndSharesAsTheJdkDoes() throws Exception {
        RoundTrip rt = new RoundTrip();
        List<String> hard = hardStrings();
        Object[] arr = hard.toArray();
        String[] strings = hard.toArray(new String[0]);
        Object[] back = rt.roundTripAll(arr, strings, new Holder(hard.get(0), hard.get(3), hard.get(0)));
        assertArrayEquals(arr, (Object[]) back[0]);
        assertArrayEquals(strings, (String[]) back[1]);
        Holder h = (Holder) back[2];
        assertEquals(hard.get(0), h.a);
        assertEquals(hard.get(3), h.b);
        // one string object written three times is one object read, as in the JDK
        assertSame(((Object[]) back[0])[0], h.a);
        assertSame(h.a, h.c);
        assertSame(((Object[]) back[0])[0], ((String[]) back[1])[0]);
    }

    @Test
    void charsOfEveryValueSurviveInFieldsArraysAndWriteChar() throws Exception {
        RoundTrip rt = new RoundTrip();
        char[] all = new char[65536];
        for (int c = 0; c < all.length; c++) {
            all[c] = (char) c;
        }
        assertArrayEquals(all, (char[]) rt.roundTrip(all));
        for (char c : new char[] {0, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFF, 0xFFFE, 0x00FF, 0x0100}) {
            Holder h = new Holder("", "", "");
            h.ch = c;
            h.custom = String.valueOf(c);
            Holder back = (Holder) rt.roundTrip(h);
            assertEquals(c, back.ch);
            assertEquals(h.custom, back.custom, "written with writeUTF and writeChars in writeObject");
            assertEquals(c, back.customChar);
        }
    }

    @Test
    void stringsWrittenWithWriteUtfInAWriteObjectSurvive() throws Exception {
        RoundTrip rt = new RoundTrip();
        for (String s : hardStrings()) {
            Holder h = new Holder("x", "y", "z");
            h.custom = s;
            assertEquals(s, ((Holder) rt.roundTrip(h)).custom, () -> "writeUTF " + escape(s));
        }
    }

    @Test
    void aSenderOfTheOtherByteOrderIsReadExactly() throws Exception {
        RoundTrip rt = new RoundTrip();
        String s = "a\uD800b\uDC00\u0100\uD83D\uDE00\u0000";
        byte[] m = rt.write(s); // [flags][0 types][tag][varint n][2n bytes]
        assertEquals(Wire.T_STRING_U16, m[2]);
        byte[] swapped = m.clone();
        swapped[0] ^= Wire.F_LITTLE_ENDIAN;
        for (int p = 4; p < m.length; p += 2) {
            swapped[p] = m[p + 1];
            swapped[p + 1] = m[p];
        }
        assertEquals(s, rt.read(swapped, 1)[0]);
    }

    /** Class and field names are modified UTF-8 in a class file: whatever it holds must name the same class. */
    @Test
    void classAndFieldNamesWithLoneSurrogatesAndNulSurvive() throws Exception {
        String className = "dev.remora.serializer.Odd\uD800Name\uDC00";
        String stringField = "f\uDBFF";
        String intField = "\u0000n\uDFFF";
        Loader loader = new Loader(className, stringField, intField);
        Class<?> c = loader.loadClass(className);
        assertEquals(className, c.getName());
        Object o = c.getDeclaredConstructor().newInstance();
        Field fs = c.getDeclaredField(stringField);
        Field fi = c.getDeclaredField(intField);
        fs.set(o, "v\uD800");
        fi.setInt(o, 7);

        SerializerOptions opts = SerializerOptions.DEFAULTS.withResolver(ClassResolver.of(loader));
        RoundTrip rt = new RoundTrip(opts);
        Object back = rt.roundTrip(o);
        assertSame(c, back.getClass());
        assertEquals("v\uD800", fs.get(back));
        assertEquals(7, fi.getInt(back));

        // the JDK agrees (same class, same serialVersionUID computed from those names)
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(b)) {
            oos.writeObject(o);
        }
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray())) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass d) throws ClassNotFoundException {
                return Class.forName(d.getName(), false, loader);
            }
        }) {
            Object j = ois.readObject();
            assertEquals("v\uD800", fs.get(j));
        }
    }

    @Test
    void modifiedUtf8NamesRoundTripAndMalformedOnesAreRejected() throws Exception {
        for (String s : hardStrings()) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            ModifiedUtf8.write(b, s);
            byte[] m = b.toByteArray();
            int p = 0;
            int len = 0;
            for (int shift = 0; ; shift += 7) {
                int v = m[p++];
                len |= (v & 0x7F) << shift;
                if (v >= 0) {
                    break;
                }
            }
            assertEquals(m.length - p, len);
            assertEquals(s, ModifiedUtf8.read(m, p, len), () -> escape(s));
        }
        byte[][] bad = {{(byte) 0xC0}, {(byte) 0xE0, (byte) 0x80}, {(byte) 0xF0, (byte) 0x80, (byte) 0x80,
            (byte) 0x80}, {(byte) 0x80}, {(byte) 0xC3, 0x41}};
        for (byte[] m : bad) {
            assertThrows(StreamCorruptedException.class, () -> ModifiedUtf8.read(m, 0, m.length));
        }
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(s.length(), 40); i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04X", (int) c));
        }
        return b + (s.length() > 40 ? "... (" + s.length() + " chars)" : "");
    }

    static final class Holder implements Serializable {
        private static final long serialVersionUID = 1L;
        String a;
        String b;
        String c;
        char ch;
        transient String custom = "";
        transient char customChar;

        Holder(String a, String b, String c) {
            this.a = a;
            this.b = b;
            this.c = c;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeUTF(custom);
            out.writeInt(custom.length());
            out.writeChars(custom);
            out.writeChar(ch);
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            custom = in.readUTF();
            int n = in.readInt();
            char[] cs = new char[n];
            for (int i = 0; i < n; i++) {
                cs[i] = in.readChar();
            }
            if (!new String(cs).equals(custom)) {
                throw new IOException("writeChars gave back " + escape(new String(cs)));
            }
            customChar = in.readChar();
        }
    }

    /** Defines one Serializable class whose class and field names are given. */
    static final class Loader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        Loader(String name, String stringField, String intField) {
            super(StringFidelityTest.class.getClassLoader());
            this.name = name;
            ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
            w.visit(Opcodes.V11, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name.replace('.', '/'), null,
                    "java/lang/Object", new String[] {"java/io/Serializable"});
            w.visitField(Opcodes.ACC_PUBLIC, stringField, "Ljava/lang/String;", null, null).visitEnd();
            w.visitField(Opcodes.ACC_PUBLIC, intField, "I", null, null).visitEnd();
            MethodVisitor m = w.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
            m.visitCode();
            m.visitVarInsn(Opcodes.ALOAD, 0);
            m.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
            m.visitInsn(Opcodes.RETURN);
            m.visitMaxs(0, 0);
            m.visitEnd();
            w.visitEnd();
            bytes = w.toByteArray();
        }

        @Override
        protected Class<?> findClass(String n) throws ClassNotFoundException {
            if (n.equals(name)) {
                return defineClass(n, bytes, 0, bytes.length);
            }
            throw new ClassNotFoundException(n);
        }
    }
}
