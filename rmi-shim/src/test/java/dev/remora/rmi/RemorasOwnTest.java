package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.serializer.RemoraObjectOutput;
import org.junit.jupiter.api.Test;

/**
 * Which failures while writing a value Remora takes for its own (and then leaves the value to JDK serialization or
 * the call to JRMP) and which for the application's (reported as plain RMI reports them).
 */
class RemorasOwnTest {
    @Test
    void anErrorIsRemoras() {
        assertTrue(Dispatcher.remorasOwn(new InternalError("anything")));
    }

    @Test
    void anExceptionThrownByRemorasSerializerIsRemoras() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RemoraObjectOutput.copyPiece(new boolean[4], 0, new byte[4], 0, 4));
        assertTrue(Dispatcher.remorasOwn(e), e::toString);
    }

    @Test
    void anExceptionThrownByTheApplicationIsNotEvenInRemorasPackages() {
        // this test class stands for the application: its package is Remora's, its code is not
        assertFalse(Dispatcher.remorasOwn(applicationFailure()));
        assertFalse(Dispatcher.remorasOwn(assertThrows(NumberFormatException.class, () -> Integer.parseInt("x"))));
        IllegalStateException traceless = new IllegalStateException("no trace");
        traceless.setStackTrace(new StackTraceElement[0]);
        assertFalse(Dispatcher.remorasOwn(traceless));
    }

    private static RuntimeException applicationFailure() {
        try {
            throw new IllegalStateException("a writeObject of the application's");
        } catch (IllegalStateException e) {
            return e;
        }
    }
}
