package dev.remora.agent.hooks;

import dev.remora.bootstrap.RemoraBridge;
import java.io.ObjectOutputStream;
import net.bytebuddy.asm.Advice;

/**
 * {@code remora.oos=fast}, writer side: advice inlined into {@code java.io.ObjectOutputStream}, installed only with
 * that setting (rules as in {@link RmiAdvice}). {@link Header} replaces the JDK's stream header of a stream whose
 * class is exactly ObjectOutputStream with Remora's and keeps a fast-format writer for it in the bridge; every public
 * method then skips the JDK's body and calls the same method on that writer (itself an ObjectOutputStream). Streams
 * of any subclass (RMI's, the application's) find no writer and run the JDK's code, overrides included.
 *
 * <p>The lookup is in the enter advice (suppressed: a failure leaves the JDK's body); the forwarded call is in the
 * exit advice, which hands whatever the writer throws to the caller, as the JDK's body would have thrown it.
 */
public final class FastOutputAdvice {

    private FastOutputAdvice() {
    }

    /**
     * {@code writeStreamHeader()}, called by the {@code ObjectOutputStream(OutputStream)} constructor: Remora's header
     * and a writer, or (null) the JDK's header; an IOException from writing the header is the constructor's.
     */
    public static final class Header {
        private Header() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.This ObjectOutputStream self, @Advice.FieldValue("bout") Object bout)
                throws Throwable {
            return RemoraBridge.oosHeader(self, bout);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object outcome, @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (outcome instanceof Throwable) {
                thrown = (Throwable) outcome;
            }
        }
    }

    /** {@code writeObject(Object)}. */
    public static final class WriteObject {
        private WriteObject() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) Object a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeObject(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeUnshared(Object)}. */
    public static final class WriteUnshared {
        private WriteUnshared() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) Object a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeUnshared(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code defaultWriteObject()}. */
    public static final class DefaultWriteObject {
        private DefaultWriteObject() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.defaultWriteObject();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code putFields()}. */
    public static final class PutFields {
        private PutFields() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Return(readOnly = false) ObjectOutputStream.PutField result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    result = d.putFields();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeFields()}. */
    public static final class WriteFields {
        private WriteFields() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeFields();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code reset()}. */
    public static final class Reset {
        private Reset() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.reset();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code useProtocolVersion(int)}. */
    public static final class UseProtocolVersion {
        private UseProtocolVersion() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.useProtocolVersion(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code write(int)}. */
    public static final class Write {
        private Write() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.write(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code write(byte[])}. */
    public static final class WriteArray {
        private WriteArray() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) byte[] a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.write(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code write(byte[], int, int)}. */
    public static final class WriteArrayRange {
        private WriteArrayRange() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) byte[] a0,
                @Advice.Argument(1) int a1, @Advice.Argument(2) int a2,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.write(a0, a1, a2);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code flush()}. */
    public static final class Flush {
        private Flush() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.flush();
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
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.close();
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeBoolean(boolean)}. */
    public static final class WriteBoolean {
        private WriteBoolean() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) boolean a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeBoolean(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeByte(int)}. */
    public static final class WriteByte {
        private WriteByte() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeByte(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeShort(int)}. */
    public static final class WriteShort {
        private WriteShort() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeShort(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeChar(int)}. */
    public static final class WriteChar {
        private WriteChar() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeChar(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeInt(int)}. */
    public static final class WriteInt {
        private WriteInt() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) int a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeInt(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeLong(long)}. */
    public static final class WriteLong {
        private WriteLong() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) long a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeLong(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeFloat(float)}. */
    public static final class WriteFloat {
        private WriteFloat() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) float a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeFloat(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeDouble(double)}. */
    public static final class WriteDouble {
        private WriteDouble() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) double a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeDouble(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeBytes(String)}. */
    public static final class WriteBytes {
        private WriteBytes() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) String a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeBytes(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeChars(String)}. */
    public static final class WriteChars {
        private WriteChars() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) String a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeChars(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }

    /** {@code writeUTF(String)}. */
    public static final class WriteUTF {
        private WriteUTF() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static ObjectOutputStream enter(@Advice.This ObjectOutputStream self) {
            return RemoraBridge.oosDelegate(self);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter ObjectOutputStream d, @Advice.Argument(0) String a0,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (d != null) {
                try {
                    d.writeUTF(a0);
                } catch (Throwable t) {
                    thrown = t;
                }
            }
        }
    }
}
