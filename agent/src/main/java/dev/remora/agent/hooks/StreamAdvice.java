package dev.remora.agent.hooks;

import dev.remora.bootstrap.RemoraBridge;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined into {@code java.io.ObjectOutputStream} and {@code ObjectInputStream} (see {@link RmiAdvice} for
 * the rules). Observes only; the opt-in {@code remora.oos=fast} is {@link FastOutputAdvice} and
 * {@link FastInputAdvice}.
 */
public final class StreamAdvice {

    private StreamAdvice() {
    }

    /** {@code writeObject(Object)} and {@code writeUnshared(Object)}. */
    public static final class Write {
        private Write() {
        }

        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.This Object stream, @Advice.Argument(0) Object obj) throws Throwable {
            RemoraBridge.streamWrite(stream, obj);
        }
    }

    /** {@code readObject()}, the private {@code readObject(Class)} that {@code readString} uses, {@code readUnshared()}. */
    public static final class Read {
        private Read() {
        }

        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.This Object stream) throws Throwable {
            RemoraBridge.streamRead(stream);
        }
    }
}
