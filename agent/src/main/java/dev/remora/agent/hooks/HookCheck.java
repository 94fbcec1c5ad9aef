package dev.remora.agent.hooks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether the running JDK has the {@link HookPoint}s, read from the methods tables of its class files: no
 * class is loaded, so none needs retransforming and a JVM that never uses RMI loads no RMI class. Used by the
 * {@code Activation} before anything is woven and by the self-check; a class of its own so that the hook points,
 * needed at premain, do not bring this parsing with them. Each class file is read once.
 */
public final class HookCheck {

    private HookCheck() {
    }

    /**
     * Why each of {@code points} is missing from the running JDK, read from the JDK's class files without loading a
     * class (so nothing needs retransforming later and no RMI class is loaded in a JVM that never uses RMI).
     *
     * @return one line per missing point; empty when every point matches exactly one method
     */
    public static List<String> missing(List<HookPoint> points) {
        List<String> missing = new ArrayList<>();
        Map<String, List<String>> methods = new HashMap<>(); // per class: "name descriptor", its file read once
        for (HookPoint h : points) {
            List<String> m = methods.get(h.typeName());
            String why = null;
            if (m == null) {
                byte[] file = jdkClassFile(h.module(), h.typeName());
                if (file == null) {
                    why = "class " + h.typeName() + " not found";
                } else {
                    try {
                        m = methods(file);
                        methods.put(h.typeName(), m);
                    } catch (RuntimeException e) {
                        why = "class " + h.typeName() + " unreadable (" + e + ")";
                    }
                }
            }
            if (why == null) {
                why = count(h, m);
            }
            if (why != null) {
                missing.add(why);
            }
        }
        return missing;
    }

    /** The class file of {@code typeName} in the JDK module {@code module}, or null. */
    public static byte[] jdkClassFile(String module, String typeName) {
        Optional<Module> m = ModuleLayer.boot().findModule(module);
        if (m.isEmpty()) {
            return null;
        }
        try (InputStream in = m.get().getResourceAsStream(typeName.replace('.', '/') + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Looks the hook point {@code h} up in a class file.
     *
     * @return null when exactly one method matches, else why the point is missing
     */
    public static String findIn(HookPoint h, byte[] classFile) {
        List<String> m;
        try {
            m = methods(classFile);
        } catch (RuntimeException e) {
            return "class " + h.typeName() + " unreadable (" + e + ")";
        }
        return count(h, m);
    }

    /**
     * The methods a class file declares, each as its name, a space and its descriptor. Read here rather than with
     * ASM: the constant pool and the methods table are all the check needs, and a fresh JVM then loads and runs no
     * ASM class for it (JVMS 4.1, 4.4, 4.6). A malformed file throws a RuntimeException.
     */
    public static List<String> methods(byte[] classFile) {
        ByteBuffer b = ByteBuffer.wrap(classFile); // big-endian, as class files are
        if (b.getInt() != 0xCAFEBABE) {
            throw new IllegalArgumentException("not a class file");
        }
        b.getInt(); // minor, major
        int n = b.getShort() & 0xFFFF;
        String[] utf8 = new String[n];
        for (int i = 1; i < n; i++) {
            int tag = b.get();
            switch (tag) {
                case 1: // Utf8
                    int len = b.getShort() & 0xFFFF;
                    utf8[i] = modifiedUtf8(classFile, b.position(), len);
                    b.position(b.position() + len);
                    break;
                case 7: case 8: case 16: case 19: case 20: // Class, String, MethodType, Module, Package
                    b.position(b.position() + 2);
                    break;
                case 15: // MethodHandle
                    b.position(b.position() + 3);
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
                    b.position(b.position() + 4);
                    break;
                case 5: case 6: // Long, Double: two entries
                    b.position(b.position() + 8);
                    i++;
                    break;
                default:
                    throw new IllegalArgumentException("constant pool tag " + tag + " at entry " + i);
            }
        }
        b.position(b.position() + 6); // access, this, super
        int interfaces = b.getShort() & 0xFFFF;
        b.position(b.position() + 2 * interfaces);
        skipMembers(b); // fields
        int methods = b.getShort() & 0xFFFF;
        List<String> m = new ArrayList<>(methods);
        for (int i = 0; i < methods; i++) {
            b.getShort(); // access
            String name = utf8[b.getShort() & 0xFFFF];
            String descriptor = utf8[b.getShort() & 0xFFFF];
            if (name == null || descriptor == null) {
                throw new IllegalArgumentException("method " + i + " names no Utf8 constant");
            }
            m.add(name + " " + descriptor);
            skipAttributes(b);
        }
        return m;
    }

    private static void skipMembers(ByteBuffer b) {
        int count = b.getShort() & 0xFFFF;
        for (int i = 0; i < count; i++) {
            b.position(b.position() + 6); // access, name, descriptor
            skipAttributes(b);
        }
    }

    private static void skipAttributes(ByteBuffer b) {
        int count = b.getShort() & 0xFFFF;
        for (int i = 0; i < count; i++) {
            b.getShort(); // name
            int len = b.getInt();
            if (len < 0) {
                throw new IllegalArgumentException("attribute of " + Integer.toUnsignedString(len) + " bytes");
            }
            b.position(b.position() + len);
        }
    }

    /** A class file's modified UTF-8 (JVMS 4.4.7): no 4-byte form, U+0000 as two bytes. */
    private static String modifiedUtf8(byte[] f, int off, int len) {
        char[] c = new char[len];
        int n = 0;
        int end = off + len;
        if (end > f.length) {
            throw new IllegalArgumentException("Utf8 constant past the end");
        }
        for (int i = off; i < end; ) {
            int x = f[i++] & 0xFF;
            if (x < 0x80) {
                c[n++] = (char) x;
            } else if ((x & 0xE0) == 0xC0 && i < end) {
                c[n++] = (char) (((x & 0x1F) << 6) | (f[i++] & 0x3F));
            } else if ((x & 0xF0) == 0xE0 && i + 1 < end) {
                c[n++] = (char) (((x & 0x0F) << 12) | ((f[i] & 0x3F) << 6) | (f[i + 1] & 0x3F));
                i += 2;
            } else {
                throw new IllegalArgumentException("malformed Utf8 constant");
            }
        }
        return new String(c, 0, n);
    }

    private static String count(HookPoint h, List<String> methods) {
        int n = 0;
        for (String nd : methods) {
            int sp = nd.indexOf(' ');
            if (h.matches(nd.substring(0, sp), nd.substring(sp + 1))) {
                n++;
            }
        }
        return n == 1 ? null
                : (n == 0 ? "no method " : n + " methods match ") + h.typeName() + "." + h.methodText();
    }
}
