package dev.remora.agent.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandles;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.dynamic.ClassFileLocator;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.SimpleRemapper;

/**
 * Puts {@code dev.remora.bootstrap.RemoraBridge} into {@code java.base} as {@code java.io.RemoraBridge} and serves
 * the advice classes to Byte Buddy with the same rename applied (see {@code dev.remora.bootstrap} package-info for
 * why this beats appending to the bootstrap search path).
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

    /** Opens {@code java.io} to the agent, then defines the renamed bridge there. */
    public static Class<?> inject(Instrumentation inst) throws IOException, ReflectiveOperationException {
        Module base = Object.class.getModule();
        Module self = BridgeInjector.class.getModule();
        inst.redefineModule(base, Collections.emptySet(), Collections.emptyMap(),
                Map.of("java.io", Set.of(self)), Collections.emptySet(), Collections.emptyMap());
        MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(ObjectOutputStream.class, MethodHandles.lookup());
        return lookup.defineClass(remap(read(BridgeInjector.class.getClassLoader(), SOURCE)));
    }

    /** A locator that hands out agent classes (advice) with the bridge renamed, and the renamed bridge itself. */
    public static ClassFileLocator adviceLocator(ClassLoader agentLoader) {
        return new ClassFileLocator() {
            @Override
            public Resolution locate(String name) throws IOException {
                String path = name.replace('.', '/');
                if (path.equals(TARGET)) {
                    return new Resolution.Explicit(remap(read(agentLoader, SOURCE)));
                }
                if (!path.startsWith("dev/remora/")) {
                    return new Resolution.Illegal(name);
                }
                byte[] bytes = readOrNull(agentLoader, path);
                return bytes == null ? new Resolution.Illegal(name) : new Resolution.Explicit(remap(bytes));
            }

            @Override
            public void close() {
            }
        };
    }

    static byte[] remap(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassRemapper(writer, new SimpleRemapper(SOURCE, TARGET)), 0);
        return writer.toByteArray();
    }

    private static byte[] read(ClassLoader loader, String path) throws IOException {
        byte[] b = readOrNull(loader, path);
        if (b == null) {
            throw new IOException(path + ".class is missing from remora-agent.jar; the jar is damaged, rebuild it");
        }
        return b;
    }

    private static byte[] readOrNull(ClassLoader loader, String path) throws IOException {
        try (InputStream in = loader.getResourceAsStream(path + ".class")) {
            return in == null ? null : in.readAllBytes();
        }
    }
}
