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
     * A codec whose field accessors are method handles.
     *
     * @param codes   JDK type codes (B C D F I J S Z, L or [ for references), primitives first
     * @param getters (Object)T per field, T primitive or Object
     * @param setters (Object,T)void per field
     */
    static FieldCodec generate(String forClass, char[] codes, MethodHandle[] getters, MethodHandle[] setters)
            throws ReflectiveOperationException {
        int n = codes.length;
        List<Object> data = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            data.add(getters[i]);
        }
        for (int i = 0; i < n; i++) {
            data.add(setters[i]);
        }
        return define(forClass, codes, new Handles(n), data);
    }

    /**
     * A codec that reads and writes fields at their offsets with {@code jdk.internal.misc.Unsafe} ({@link FieldAccess}):
     * no method handle per field.
     *
     * @param offsets   each field's offset in instances of its class
     * @param checks    per reference field, the type a value read must have before it is stored, or null (Object)
     * @param owner     the declaring class's name, for the JDK's ClassCastException message
     * @param names     the fields' names, ditto
     */
    static FieldCodec generateUnsafe(String forClass, char[] codes, long[] offsets, Class<?>[] checks, String owner,
                                     String[] names) throws ReflectiveOperationException {
        List<Object> data = new ArrayList<>(1 + codes.length);
        data.add(FieldAccess.UNSAFE);
        for (Class<?> c : checks) {
            if (c != null) {
                data.add(c);
            }
        }
        return define(forClass, codes, new Offsets(offsets, checks, owner, names), data);
    }

    private static FieldCodec define(String forClass, char[] codes, Access access, List<Object> data)
            throws ReflectiveOperationException {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        // same package as this class, whatever a shading step renamed it to: a hidden class joins the lookup's package
        String self = CodecGenerator.class.getPackageName().replace('.', '/') + "/Codec$" + sanitize(forClass);
        String superName = Type.getInternalName(FieldCodec.class);
        cw.visit(Opcodes.V17, Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, self, null, superName, null);
        access.fields(cw);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        access.clinit(mv, self);
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
        writeMethod(cw, self, codes, primBytes, access);
        readMethod(cw, self, codes, primBytes, "read", "N", access);
        readMethod(cw, self, codes, primBytes, "readSwapped", "S", access);
        cw.visitEnd();

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

    /** How a codec's code reaches field i: the static fields it keeps, and the instructions around a get or a put. */
    private abstract static class Access {
        abstract void fields(ClassWriter cw);

        /** Fills the static fields from the class data. */
        abstract void clinit(MethodVisitor mv, String self);

        /** Stack: ... -> ..., value of field i of local 1 (as code c: primitive, or Object). */
        abstract void get(MethodVisitor mv, String self, int i, char c);

        /** Before the value to store is pushed. */
        abstract void beforePut(MethodVisitor mv, String self, int i);

        /** After it was pushed: stores it (checking a reference's type first where needed). */
        abstract void put(MethodVisitor mv, String self, int i, char c);

        static void classData(MethodVisitor mv, String self, int index, String field, String type) {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup",
                    "()Ljava/lang/invoke/MethodHandles$Lookup;", false);
            mv.visitLdcInsn("_");
            mv.visitLdcInsn(Type.getObjectType("java/lang/Object"));
            mv.visitLdcInsn(index);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "classDataAt",
                    "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;I)Ljava/lang/Object;",
                    false);
            mv.visitTypeInsn(Opcodes.CHECKCAST, type);
            mv.visitFieldInsn(Opcodes.PUTSTATIC, self, field, "L" + type + ";");
        }
    }

    /** Getter and setter method handles in static final fields (g0.., s0..). */
    private static final class Handles extends Access {
        private final int n;

        Handles(int n) {
            this.n = n;
        }

        @Override
        void fields(ClassWriter cw) {
            for (int i = 0; i < n; i++) {
                cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "g" + i, "L" + MH + ";",
                        null, null).visitEnd();
                cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "s" + i, "L" + MH + ";",
                        null, null).visitEnd();
            }
        }

        @Override
        void clinit(MethodVisitor mv, String self) {
            for (int i = 0; i < 2 * n; i++) {
                classData(mv, self, i, (i < n ? "g" : "s") + (i % n), MH);
            }
        }

        @Override
        void get(MethodVisitor mv, String self, int i, char c) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "g" + i, "L" + MH + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + ")" + desc(c), false);
        }

        @Override
        void beforePut(MethodVisitor mv, String self, int i) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "s" + i, "L" + MH + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
        }

        @Override
        void put(MethodVisitor mv, String self, int i, char c) {
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, MH, "invokeExact", "(" + OBJ + desc(c) + ")V", false);
        }
    }

    /** jdk.internal.misc.Unsafe in a static final field (u), offsets as constants, checked types (t0..). */
    private static final class Offsets extends Access {
        private static final String U = FieldAccess.UNSAFE_CLASS;
        private static final String CLASS = "java/lang/Class";
        private final long[] offsets;
        private final Class<?>[] checks;
        private final String owner;
        private final String[] names;

        Offsets(long[] offsets, Class<?>[] checks, String owner, String[] names) {
            this.offsets = offsets;
            this.checks = checks;
            this.owner = owner;
            this.names = names;
        }

        @Override
        void fields(ClassWriter cw) {
            cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "u", "L" + U + ";", null, null)
                    .visitEnd();
            for (int i = 0; i < checks.length; i++) {
                if (checks[i] != null) {
                    cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_FINAL, "t" + i,
                            "L" + CLASS + ";", null, null).visitEnd();
                }
            }
        }

        @Override
        void clinit(MethodVisitor mv, String self) {
            classData(mv, self, 0, "u", U);
            int k = 1;
            for (int i = 0; i < checks.length; i++) {
                if (checks[i] != null) {
                    classData(mv, self, k++, "t" + i, CLASS);
                }
            }
        }

        @Override
        void get(MethodVisitor mv, String self, int i, char c) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "u", "L" + U + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitLdcInsn(offsets[i]);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, U, "get" + kind(c), "(" + OBJ + "J)" + desc(c), false);
        }

        @Override
        void beforePut(MethodVisitor mv, String self, int i) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, self, "u", "L" + U + ";");
            mv.visitVarInsn(Opcodes.ALOAD, 1);
            mv.visitLdcInsn(offsets[i]);
        }

        @Override
        void put(MethodVisitor mv, String self, int i, char c) {
            if (checks[i] != null) { // stack: u, obj, offset, value
                mv.visitInsn(Opcodes.DUP);
                mv.visitFieldInsn(Opcodes.GETSTATIC, self, "t" + i, "L" + CLASS + ";");
                mv.visitVarInsn(Opcodes.ALOAD, 1);
                mv.visitLdcInsn(owner);
                mv.visitLdcInsn(names[i]);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, Type.getInternalName(Slot.class), "checkAssignable",
                        "(" + OBJ + "L" + CLASS + ";" + OBJ + "Ljava/lang/String;Ljava/lang/String;)V", false);
            }
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, U, "put" + kind(c), "(" + OBJ + "J" + desc(c) + ")V", false);
        }

        private static String kind(char c) {
            switch (c) {
                case 'B': return "Byte";
                case 'C': return "Char";
                case 'D': return "Double";
                case 'F': return "Float";
                case 'I': return "Int";
                case 'J': return "Long";
                case 'S': return "Short";
                case 'Z': return "Boolean";
                default: return "Reference";
            }
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

    private static void writeMethod(ClassWriter cw, String self, char[] codes, int primBytes, Access access) {
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
                access.get(mv, self, i, c);
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
            access.get(mv, self, i, 'L');
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OUT, "writeFieldObject", "(" + OBJ + ")V", false);
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void readMethod(ClassWriter cw, String self, char[] codes, int primBytes, String name,
                                   String prefix, Access access) {
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
                access.beforePut(mv, self, i);
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
                access.put(mv, self, i, c);
                off += size;
            }
        }
        for (int i = 0; i < codes.length; i++) {
            if (Bytes.size(codes[i]) != 0) {
                continue;
            }
            access.beforePut(mv, self, i);
            mv.visitVarInsn(Opcodes.ALOAD, 2);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, IN, "readFieldObject", "()" + OBJ, false);
            access.put(mv, self, i, 'L');
        }
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }
}
