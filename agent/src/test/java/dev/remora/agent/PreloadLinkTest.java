package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * {@link Preload#link} verifies a loaded class ahead of its first use and does not initialise it: a class whose
 * bytecode the verifier refuses loads fine and fails only there, and a class whose static initialiser leaves a mark
 * leaves none.
 */
class PreloadLinkTest {

    /** Set by {@link Marked}'s static initialiser. */
    static volatile boolean initialised;

    static final class Marked {
        static {
            initialised = true;
        }

        static void touch() {
        }
    }

    @Test
    void aLinkedClassIsNotInitialised() throws Exception {
        Class<?> c = Class.forName(PreloadLinkTest.class.getName() + "$Marked", false,
                PreloadLinkTest.class.getClassLoader());
        assertTrue(Preload.link(c));
        assertFalse(initialised, "linking ran the static initialiser");
        Marked.touch();
        assertTrue(initialised);
    }

    @Test
    void linkingVerifiesWhatLoadingDoesNot() throws Exception {
        Class<?> bad = new ByteLoader().define("dev.remora.agent.BadBytecode", badBytecode());
        assertFalse(Preload.link(bad), "a method returning an int as an Object passed: the class was not verified");
        assertTrue(Preload.link(PreloadLinkTest.class));
    }

    /** class BadBytecode { static Object f() { return 0; } } as iconst_0, areturn: which no verifier takes. */
    private static byte[] badBytecode() {
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        w.visit(Opcodes.V11, Opcodes.ACC_PUBLIC, "dev/remora/agent/BadBytecode", null, "java/lang/Object", null);
        MethodVisitor m = w.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "f", "()Ljava/lang/Object;", null,
                null);
        m.visitCode();
        m.visitInsn(Opcodes.ICONST_0);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
        w.visitEnd();
        return w.toByteArray();
    }

    private static final class ByteLoader extends ClassLoader {
        ByteLoader() {
            super(PreloadLinkTest.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }
}
