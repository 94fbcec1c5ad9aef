package dev.remora.agent.hooks;

import dev.remora.bootstrap.RemoraBridge;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.ObjectInputValidation;
import net.bytebuddy.asm.Advice;

/**
 * {@code remora.oos=fast}, reader side: advice inlined into {@code java.io.ObjectInputStream}, installed only with
 * that setting (see {@link FastOutputAdvice}). {@link Header} reads the 4 header bytes of an ObjectInputStream or of
 * an application's subclass (not RMI's): Remora's header gives a fast-format reader that every public method then
 * forwards to (a subclass's resolveClass, resolveProxyClass and resolveObject decide, see {@link SubclassHost});
 * the JDK's header is checked as the JDK checks it and the stream goes on in the JDK's format, so an instrumented
 * reader reads both. {@code getObjectInputFilter}/{@code setObjectInputFilter} are final and not forwarded: the
 * application's stream keeps its filter the JDK's way and the reader consults it.
 */
public final class FastInputAdvice {

    private FastInputAdvice() {
    }

    /**
     * {@code readStreamHeader()}, called by the {@code ObjectInputStream(InputStream)} constructor. The outcome is
     * null (the JDK reads the header), a reader or TRUE (header read, JDK body skipped) or the exception the
     * constructor throws.
     */
    public static final class Header {
        private Header() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.This ObjectInputStream self, @Advice.FieldValue("bin") Object bin)
                throws Throwable {
            return RemoraBridge.oisHeader(self, bin);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object outcome, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (outcome instanceof Throwable) {
                thrown = (Throwable) outcome;
            }
        }
    }

    /** {@code readObject()}. */
    public static final class ReadObject {
        private ReadObject() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) Object result,
                @Advice.Thrown(readOnly = false) Throwable thrown,
                @Advice.FieldValue(value = "totalObjectRefs", readOnly = false) long refs) {
            if (d != null) {
                refs = refs + 1; // the application's stream has read an object: its filter can no longer be set
                try {
                    result = d.readObject();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readUnshared()}. */
    public static final class ReadUnshared {
        private ReadUnshared() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) Object result,
                @Advice.Thrown(readOnly = false) Throwable thrown,
                @Advice.FieldValue(value = "totalObjectRefs", readOnly = false) long refs) {
            if (d != null) {
                refs = refs + 1; // the application's stream has read an object: its filter can no longer be set
                try {
                    result = d.readUnshared();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code defaultReadObject()}. */
    public static final class DefaultReadObject {
        private DefaultReadObject() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.defaultReadObject();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readFields()}. */
    public static final class ReadFields {
        private ReadFields() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d,
                @Advice.Return(readOnly = false) ObjectInputStream.GetField result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readFields();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /**
     * {@code readClassDescriptor()}, protected: called by an application's override while Remora's reader has it
     * read a class descriptor ({@code SubclassHost.readClassDescriptor}); returns the descriptor being read.
     */
    public static final class ReadClassDescriptor {
        private ReadClassDescriptor() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d,
                @Advice.Return(readOnly = false) ObjectStreamClass result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = RemoraBridge.oisClassDescriptor(d);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code registerValidation(ObjectInputValidation, int)}. */
    public static final class RegisterValidation {
        private RegisterValidation() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Argument(0) ObjectInputValidation a0,
                @Advice.Argument(1) int a1, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.registerValidation(a0, a1);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code read()}. */
    public static final class Read {
        private Read() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.read();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code read(byte[], int, int)}. */
    public static final class ReadRange {
        private ReadRange() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Argument(0) byte[] a0,
                @Advice.Argument(1) int a1, @Advice.Argument(2) int a2, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.read(a0, a1, a2);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code available()}. */
    public static final class Available {
        private Available() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.available();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code close()}. */
    public static final class Close {
        private Close() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.close();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readBoolean()}. */
    public static final class ReadBoolean {
        private ReadBoolean() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) boolean result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readBoolean();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readByte()}. */
    public static final class ReadByte {
        private ReadByte() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) byte result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readByte();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readUnsignedByte()}. */
    public static final class ReadUnsignedByte {
        private ReadUnsignedByte() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readUnsignedByte();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readChar()}. */
    public static final class ReadChar {
        private ReadChar() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) char result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readChar();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readShort()}. */
    public static final class ReadShort {
        private ReadShort() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) short result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readShort();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readUnsignedShort()}. */
    public static final class ReadUnsignedShort {
        private ReadUnsignedShort() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readUnsignedShort();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readInt()}. */
    public static final class ReadInt {
        private ReadInt() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) int result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readInt();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readLong()}. */
    public static final class ReadLong {
        private ReadLong() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) long result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readLong();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readFloat()}. */
    public static final class ReadFloat {
        private ReadFloat() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) float result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readFloat();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readDouble()}. */
    public static final class ReadDouble {
        private ReadDouble() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) double result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readDouble();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readFully(byte[])}. */
    public static final class ReadFully {
        private ReadFully() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Argument(0) byte[] a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.readFully(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readFully(byte[], int, int)}. */
    public static final class ReadFullyRange {
        private ReadFullyRange() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Argument(0) byte[] a0,
                @Advice.Argument(1) int a1, @Advice.Argument(2) int a2,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.readFully(a0, a1, a2);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code skipBytes(int)}. */
    public static final class SkipBytes {
        private SkipBytes() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Argument(0) int a0,
                @Advice.Return(readOnly = false) int result, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.skipBytes(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readLine()}. */
    public static final class ReadLine {
        private ReadLine() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @SuppressWarnings("deprecation")
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) String result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readLine();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code readUTF()}. */
    public static final class ReadUTF {
        private ReadUTF() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectInputStream enter(@Advice.This ObjectInputStream self) {
            return RemoraBridge.oisDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectInputStream d, @Advice.Return(readOnly = false) String result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.readUTF();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }
}
