package dev.remora.agent.hooks;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Whether the running JDK has the {@link HookPoint}s, read from its class files with ASM's {@code ClassReader}: no
 * class is loaded, so none needs retransforming and a JVM that never uses RMI loads no RMI class. Used by the
 * {@code Activation} before anything is woven and by the self-check; a class of its own so that the hook points,
 * needed at premain, do not bring ASM with them.
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
        Map<String, byte[]> files = new HashMap<>();
        for (HookPoint h : points) {
            byte[] file = files.get(h.typeName());
            if (file == null && !files.containsKey(h.typeName())) {
                file = jdkClassFile(h.module(), h.typeName());
                files.put(h.typeName(), file);
            }
            String why = file == null ? "class " + h.typeName() + " not found" : findIn(h, file);
            if (why != null) {
                missing.add(why);
            }
        }
        return missing;
    }

    /** The class file of {@code typeName} in the JDK module {@code module}, or null. */
    static byte[] jdkClassFile(String module, String typeName) {
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
        int[] n = new int[1];
        try {
            new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                        String[] exceptions) {
                    if (h.matches(name, descriptor)) {
                        n[0]++;
                    }
                    return null;
                }
            }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        } catch (RuntimeException e) {
            return "class " + h.typeName() + " unreadable (" + e + ")";
        }
        return n[0] == 1 ? null
                : (n[0] == 0 ? "no method " : n[0] + " methods match ") + h.typeName() + "." + h.methodText();
    }
}
