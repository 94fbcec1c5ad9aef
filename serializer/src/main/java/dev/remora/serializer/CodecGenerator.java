package dev.remora.serializer;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates a {@link FieldCodec} per slot with ASM, defined as a hidden class in this package with its field
 * accessors as class data.
 *
 * <p>Design: each field gets a getter {@code (Object)T} and a setter {@code (Object,T)void} method handle, obtained
 * once per class through {@code MethodHandles.privateLookupIn(target)} (application classes: any loader, private and
 * final fields, the latter via {@code unreflectSetter} on an accessible {@code Field}) or through
 * {@code sun.misc.Unsafe} offsets (JDK classes on 17-23). The handles are stored in {@code static final} fields of
 * the hidden class, so C2 treats them as constants and inlines them down to plain field loads and stores: no
 * reflection per field on the hot path, and the generated code names no application type. That last point is why
 * the codec does not live in the target's nest: a nestmate would be defined in the application's class loader and
 * could not see Remora's stream classes when that loader does not delegate to ours, and it still could not store
 * final fields ({@code putfield} on a final field is legal only in the declaring class's constructor).
 */
final class CodecGenerator {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final String OUT = Type.getInternalName(RemoraObjectOutput.class);
    private static final String IN = Type.getInternalName(RemoraObjectInput.class);
    private static final String MH = "java/lang/invoke/MethodHandle";
    private static final String VH = "java/lang/invoke/VarHandle";
    private static final String BYTES = Type.getInternalName(Bytes.class);
    private static final String OBJ = "Ljava/lang/Object;";

    private CodecGenerator() {
    }

    /**
     * @param codes   JDK type codes (B C D F I J S Z, L or [ for references), primitives first
     * @param getters (Object)T per field, T primitive or Object
     * @param setters (Object,T)void per field
     */
    static FieldCodec generate(String forClass, char[] codes, MethodHandle[] getters, MethodHandle[] setters)
            throws ReflectiveOperationException {
        int n = codes.length;
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        // same package as this class, whatever a shading step renamed it to: a hidden class joins the lookup's package
        String self = CodecGenerator.class.getPackageName().replace('.', '/') + "/Codec$" + sanitize(forClass);
        String superName = Type.getInternalName(FieldCodec.class);
        cw.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, self, null, superName, null);
        for (int i = 0; i < n; i++) {
            cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "g" + i, "L" + MH + ";",
                    null, null).visitEnd();
            cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "s" + i, "L" + MH + ";",
                    null, null).visitEnd();
        }
        // <clinit>: g_i = classDataAt(lookup(), "_", MethodHandle.class, i); s_i = ... (n + i)
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        for (int i = 0; i < 2 * n; i++) {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                    "()Ljava/lang/invoke/MethodHandles$Lookup;", false);
            mv.visitLdcInsn("_");
            mv.visitLdcInsn(Type.getObjectType(MH));
            mv.visitLdcInsn(i);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "classDataAt",
                    "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;I)Ljava/lang/Object;",
                    false);
            mv.visitTypeInsn(Opcodes.CHECKCAST, MH);
            mv.visitFieldInsn(Opcodes.PUTSTATIC, self, (i < n ? "g" : "s") + (i % n), "L" + MH + ";");
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        // constructor
        mv = cw.visitMethod(0, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, superName, "<init>", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();

        int primBytes = 0;
        for (char c : codes) {
            primBytes += Bytes.size(c);
        }
        writeMethod(cw, self, codes, primBytes);
        readMethod(cw, self, codes, primBytes, "read", "N");
        readMethod(cw, self, codes, primBytes, "readSwapped", "S");
        cw.visitEnd();

        List<MethodHandle> data = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            data.add(getters[i]);
        }
        for (int i = 0; i < n; i++) {
            data.add(setters[i]);
        }
        MethodHandles.Lookup lk = LOOKUP.defineHiddenClassWithClassData(cw.toByteArray(), data, true);
        try {
            return (FieldCodec) lk.findConstructor(lk.lookupClass(),
                    java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (ReflectiveOperationException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static String sanitize(String name) {
        StringBuilder sb = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            sb.append(Character.isJavaIdentifierPart(c) ? c : '_');
        }
        return sb.toString();
    }

    private static String desc(char code) {
        return code == 'L' || code == '[' ? OBJ : String.valueOf(code);
    }

    private static void writeMethod(ClassWriter cw, String self, char[] codes, int primBytes) {
        MethodVisitor mv = cw.visitMethod(0, "write", "(" + OBJ + "L" + OUT + ";)V", null, null);
        mv.visitCode();
        // locals: 0 this, 1 obj, 2 out, 3 buf, 4 pos
        if (primBytes > 0) {
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitLdcInsn(primBytes);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OUT, "ensure", "(I)V", false);
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitFieldInsn(Opcodes.GETFIELD, OUT, "buf", "[B");
            mv.visitVarInsn(Opcodes.ASTORE, 3);
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitFieldInsn(Opcodes.GETFIELD, OUT, "pos", "I");
            mv.visitVarInsn(Opcodes.ISTORE, 4);
            int off = 0;
            for (int i = 0; i < codes.length; i++) {
                char c = codes[i];
                int size = Bytes.size(c);
                if (size == 0) {
                    continue;
                }
                boolean single = size == 1;
                if (!single) {
                    mv.visitFieldInsn(Opcodes.GETSTATIC, BYTES, "N" + c, "L" + VH + ";");
                }
                mv.visitVarInsn(Opcodes.ALOAD, 3);
                mv.visitVarInsn(Opcodes.ILOAD, 4);
                mv.visitLdcInsn(off);
                mv.visitInsn(Opcodes.IADD);
                mv.visitFieldInsn(Opcodes.GETSTATIC, self, "g" + i, "L" + MH + ";");
                mv.visitVarInsn(Opcodes.ALOAD, 1);
                mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + ")" + c, false);
                if (single) {
                    mv.visitInsn(Opcodes.BASTORE);
                } else {
                    mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, VH, "set", "([BI" + c + ")V", false);
                }
                off += size;
            }
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitVarInsn(Opcodes.ILOAD, 4);
            mv.visitLdcInsn(primBytes);
            mv.visitInsn(Opcodes.IADD);
            mv.visitFieldInsn(Opcodes.PUTFIELD, OUT, "pos", "I");
        }
        for (int i = 0; i < codes.length; i++) {
            if (Bytes.size(codes[i]) != 0) {
                continue;
            }
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "g" + i, "L" + MH + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + ")" + OBJ, false);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OUT, "writeFieldObject", "(" + OBJ + ")V", false);
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void readMethod(ClassWriter cw, String self, char[] codes, int primBytes, String name,
                                   String prefix) {
        MethodVisitor mv = cw.visitMethod(0, name, "(" + OBJ + "L" + IN + ";)V", null, null);
        mv.visitCode();
        if (primBytes > 0) {
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitLdcInsn(primBytes);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, IN, "take", "(I)I", false);
            mv.visitVarInsn(Opcodes.ISTORE, 4);
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitFieldInsn(Opcodes.GETFIELD, IN, "buf", "[B");
            mv.visitVarInsn(Opcodes.ASTORE, 3);
            int off = 0;
            for (int i = 0; i < codes.length; i++) {
                char c = codes[i];
                int size = Bytes.size(c);
                if (size == 0) {
                    continue;
                }
                mv.visitFieldInsn(Opcodes.GETSTATIC, self, "s" + i, "L" + MH + ";");
                mv.visitVarInsn(Opcodes.ALOAD, 1);
                if (size == 1) {
                    mv.visitVarInsn(Opcodes.ALOAD, 3);
                    mv.visitVarInsn(Opcodes.ILOAD, 4);
                    mv.visitLdcInsn(off);
                    mv.visitInsn(Opcodes.IADD);
                    mv.visitInsn(Opcodes.BALOAD);
                    if (c == 'Z') { // b != 0 without a branch: (b | -b) >>> 31
                        mv.visitInsn(Opcodes.DUP);
                        mv.visitInsn(Opcodes.INEG);
                        mv.visitInsn(Opcodes.IOR);
                        mv.visitLdcInsn(31);
                        mv.visitInsn(Opcodes.IUSHR);
                    }
                } else {
                    mv.visitFieldInsn(Opcodes.GETSTATIC, BYTES, prefix + c, "L" + VH + ";");
                    mv.visitVarInsn(Opcodes.ALOAD, 3);
                    mv.visitVarInsn(Opcodes.ILOAD, 4);
                    mv.visitLdcInsn(off);
                    mv.visitInsn(Opcodes.IADD);
                    mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, VH, "get", "([BI)" + c, false);
                }
                mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + c + ")V", false);
                off += size;
            }
        }
        for (int i = 0; i < codes.length; i++) {
            if (Bytes.size(codes[i]) != 0) {
                continue;
            }
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "s" + i, "L" + MH + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, IN, "readFieldObject", "()" + OBJ, false);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + OBJ + ")V", false);
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }
}
