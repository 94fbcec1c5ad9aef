package dev.remora.agent.bridge;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * Puts {@code dev.remora.bootstrap.RemoraBridge} into {@code java.base} as {@code java.io.RemoraBridge} and serves
 * the pieces for serving the advice classes to Byte Buddy with the same rename applied (see {@code dev.remora.bootstrap} package-info for
 * why this beats appending to the bootstrap search path). The rename rewrites the class file's constant pool
 * ({@link #remap}), so defining the bridge at premain loads neither ASM nor Byte Buddy.
 */
public final class BridgeInjector {
    public static final String SOURCE = "dev/remora/bootstrap/RemoraBridge";
    public static final String TARGET = "java/io/RemoraBridge";
    public static final String TARGET_NAME = "java.io.RemoraBridge";

    private BridgeInjector() {
    }

    /** The bridge already defined in this JVM, or null: a second Remora agent finds the first one's bridge here. */
    public static Class<?> existing() {
        try {
            return Class.forName(TARGET_NAME, false, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /**
     * Opens {@code java.io} to the agent, then defines the renamed bridge there (through a lookup on
     * {@code InputStream}, loaded at every JVM's start: ObjectOutputStream may not be loaded yet, and loading it here
     * would make it a class to retransform).
     */
    public static Class<?> inject(Instrumentation inst) throws IOException, ReflectiveOperationException {
        Module base = Object.class.getModule();
        Module self = BridgeInjector.class.getModule();
        inst.redefineModule(base, Collections.emptySet(), Collections.emptyMap(),
                Map.of("java.io", Set.of(self)), Collections.emptySet(), Collections.emptyMap());
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(InputStream.class, MethodHandles.lookup());
        return lookup.defineClass(remap(read(BridgeInjector.class.getClassLoader(), SOURCE)));
    }

    /**
     * {@code classFile} with every {@code dev/remora/bootstrap/RemoraBridge} in its constant pool's UTF-8 entries
     * (class names, descriptors) replaced by {@code java/io/RemoraBridge}; the rest of the file is copied as it is.
     * The pool is all that names a class: entries are only ever referenced by index, so they may change length.
     */
    public static byte[] remap(byte[] classFile) {
        ByteBuffer in = ByteBuffer.wrap(classFile);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(classFile.length + 64);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.write(classFile, 0, 8); // magic, minor, major
            in.position(8);
            int count = in.getShort() & 0xffff;
            out.writeShort(count);
            for (int i = 1; i < count; i++) {
                int tag = in.get();
                out.writeByte(tag);
                int size;
                switch (tag) {
                    case 1: // Utf8
                        byte[] utf = new byte[in.getShort() & 0xffff];
                        in.get(utf);
                        // Modified UTF-8 read as Latin-1: every byte is one char, so bytes round-trip unchanged
                        String text = new String(utf, StandardCharsets.ISO_8859_1);
                        if (text.contains(SOURCE)) {
                            utf = text.replace(SOURCE, TARGET).getBytes(StandardCharsets.ISO_8859_1);
                        }
                        out.writeShort(utf.length);
                        out.write(utf);
                        continue;
                    case 7: case 8: case 16: case 19: case 20: // Class, String, MethodType, Module, Package
                        size = 2;
                        break;
                    case 15: // MethodHandle
                        size = 3;
                        break;
                    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: // ints, refs, dynamic
                        size = 4;
                        break;
                    case 5: case 6: // Long, Double: two slots
                        size = 8;
                        i++;
                        break;
                    default:
                        throw new IllegalArgumentException("constant pool tag " + tag + " at entry " + i);
                }
                out.write(classFile, in.position(), size);
                in.position(in.position() + size);
            }
            out.write(classFile, in.position(), classFile.length - in.position());
        } catch (IOException e) {
            throw new IllegalStateException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /** The class file at {@code path} (no {@code .class}) in the agent jar; a missing one names a damaged jar. */
    public static byte[] read(ClassLoader loader, String path) throws IOException {
        byte[] b = readOrNull(loader, path);
        if (b == null) {
            throw new IOException(path + ".class is missing from remora-agent.jar; the jar is damaged, rebuild it");
        }
        return b;
    }

    /** The class file at {@code path} (no {@code .class}) in the agent jar, or null when missing. */
    public static byte[] readOrNull(ClassLoader loader, String path) throws IOException {
        return AgentJar.readOrNull(loader, path + ".class");
    }
}
