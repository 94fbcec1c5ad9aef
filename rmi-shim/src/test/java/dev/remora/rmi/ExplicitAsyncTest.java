package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.UnexpectedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * What {@link ExplicitAsync} decides without a connection: the placeholder a task's call returns, the exception a
 * failed call's future carries (as the stub would have thrown it), and tasks that make no Remora call (run at once,
 * their future complete; a task inside a task too). The calls themselves: AsyncIT, with real JVMs.
 */
class ExplicitAsyncTest {

    interface Svc extends Remote {
        int count() throws RemoteException;

        void log(String s) throws RemoteException, IOException;
    }

    @Test
    void aPlaceholderIsTheReturnTypesDefaultBoxedAsTheStubUnboxesIt() {
        assertNull(ExplicitAsync.placeholder(void.class));
        assertNull(ExplicitAsync.placeholder(String.class));
        assertNull(ExplicitAsync.placeholder(int[].class));
        assertEquals(Boolean.FALSE, ExplicitAsync.placeholder(boolean.class));
        assertEquals(Integer.valueOf(0), ExplicitAsync.placeholder(int.class));
        assertEquals(Long.valueOf(0), ExplicitAsync.placeholder(long.class));
        assertEquals(Double.valueOf(0), ExplicitAsync.placeholder(double.class));
        assertEquals(Float.valueOf(0), ExplicitAsync.placeholder(float.class));
        assertEquals(Character.valueOf('\0'), ExplicitAsync.placeholder(char.class));
        assertEquals(Short.valueOf((short) 0), ExplicitAsync.placeholder(short.class));
        assertEquals(Byte.valueOf((byte) 0), ExplicitAsync.placeholder(byte.class));
    }

    @Test
    void aFailedCallsFutureCarriesWhatTheStubWouldHaveThrown() throws Exception {
        Method count = Svc.class.getMethod("count");
        Method log = Svc.class.getMethod("log", String.class);
        RemoteException remote = new RemoteException("gone");
        IllegalStateException runtime = new IllegalStateException("boom");
        Error error = new AssertionError("err");
        IOException io = new IOException("io");
        assertSame(remote, ExplicitAsync.asThrownByStub(count, remote));
        assertSame(runtime, ExplicitAsync.asThrownByStub(count, runtime));
        assertSame(error, ExplicitAsync.asThrownByStub(count, error));
        assertSame(io, ExplicitAsync.asThrownByStub(log, io)); // declared
        Throwable undeclared = ExplicitAsync.asThrownByStub(count, io);
        assertInstanceOf(UnexpectedException.class, undeclared);
        assertSame(io, undeclared.getCause());
    }

    @Test
    void aTaskWithoutARemoraCallRunsAtOnce() throws Exception {
        RemoraRouter router = new RemoraRouter(RouterOptions.defaults());
        CompletableFuture<Object> f = router.async(() -> 42);
        assertTrue(f.isDone());
        assertEquals(42, f.join());
        CompletableFuture<Object> failed = router.async(() -> {
            throw new RemoteException("no");
        });
        assertTrue(failed.isCompletedExceptionally());
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, failed::get);
        assertInstanceOf(RemoteException.class, e.getCause());
        CompletableFuture<Object> nested = router.async(() -> router.async(() -> "inner").join() + "-outer");
        assertEquals("inner-outer", nested.join());
    }
}
