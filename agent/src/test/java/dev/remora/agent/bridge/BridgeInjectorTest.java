package dev.remora.agent.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BridgeInjectorTest {

    /** The bridge renamed by the constant-pool rewrite is the class ASM's remapper makes. */
    @Test
    void bridgeRenameMatchesAsm() throws Exception {
        byte[] source;
        try (java.io.InputStream in = getClass().getClassLoader()
                .getResourceAsStream(BridgeInjector.SOURCE + ".class")) {
            source = in.readAllBytes();
        }
        org.objectweb.asm.ClassWriter asm = new org.objectweb.asm.ClassWriter(0);
        new org.objectweb.asm.ClassReader(source).accept(new org.objectweb.asm.commons.ClassRemapper(asm,
                new org.objectweb.asm.commons.SimpleRemapper(BridgeInjector.SOURCE, BridgeInjector.TARGET)), 0);
        byte[] ours = BridgeInjector.remap(source);
        assertTrue(java.util.Arrays.equals(rewritten(asm.toByteArray()), rewritten(ours)),
                "same class, constant pool order aside");
        assertEquals(BridgeInjector.TARGET, new org.objectweb.asm.ClassReader(ours).getClassName());
    }

    /** A class file written anew by ASM in visiting order: two files that define the same class become equal. */
    private static byte[] rewritten(byte[] classFile) {
        org.objectweb.asm.ClassWriter w = new org.objectweb.asm.ClassWriter(0);
        new org.objectweb.asm.ClassReader(classFile).accept(w, 0);
        return w.toByteArray();
    }
}
