package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import dev.remora.rmi.jdk.RmiInternals;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a client sees of a call, on Remora's network path (two routers over loopback, see {@link Rig}) and on the
 * co-located short-cut (the server router called with the object's own stub), with either serializer, against what
 * plain JRMP gives in this same JVM (no agent here: calling the stub is JRMP): exceptions thrown while marshalling or
 * unmarshalling, results and exceptions that cannot be serialized, the export's filter, and the stack traces of
 * exceptions thrown by the server (the server's frames, then the client's once, under JRMP's own
 * {@code StreamRemoteCall.exceptionReceivedFromServer} and {@code executeCall} frames).
 */
class JrmpConformanceTest {

    enum Path { NETWORK, COLOCATED }

    public interface Conf extends Remote {
        void fail() throws RemoteException, Oops;

        void remoteFail() throws RemoteException;

        Object poison(boolean error) throws RemoteException;

        void take(Object o) throws RemoteException;

        Object unserializable() throws RemoteException;

        void unserializableException() throws RemoteException, BadOops;

        Object echo(Object o) throws RemoteException;
    }

    public static final class Oops extends Exception {
        private static final long serialVersionUID = 1L;

        Oops(String m) {
            super(m);
        }
    }

    /** Cannot be serialized: a field of a class that is not Serializable. */
    public static final class BadOops extends Exception {
        private static final long serialVersionUID = 1L;
        @SuppressWarnings("unused")
        private final Object notSerializable = new Object();

        BadOops(String m) {
            super(m);
        }
    }

    public static final class PoisonError extends Error {
        private static final long serialVersionUID = 1L;

        PoisonError(String m) {
            super(m);
        }
    }

    /** Throws from readObject: an Error, or a RuntimeException. */
    public static final class Poison implements Serializable {
        private static final long serialVersionUID = 1L;
        private final boolean error;

        Poison(boolean error) {
            this.error = error;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (error) {
                throw new PoisonError("poisoned result");
            }
            throw new IllegalStateException("poisoned result");
        }
    }

    /** Throws a RuntimeException from writeObject. */
    public static final class Bomb implements Serializable {
        private static final long serialVersionUID = 1L;

        private void writeObject(ObjectOutputStream out) throws IOException {
            throw new IllegalArgumentException("bomb");
        }
    }

    public static final class Point implements Serializable {
        private static final long serialVersionUID = 1L;
        final int x;

        Point(int x) {
            this.x = x;
        }
    }

    static final class Impl implements Conf {
        @Override
        public void fail() throws Oops {
            serverMarker();
        }

        private static void serverMarker() throws Oops {
            throw new Oops("failed");
        }

        @Override
        public void remoteFail() throws RemoteException {
            throw new RemoteException("remote trouble");
        }

        @Override
        public Object poison(boolean error) {
            return new Poison(error);
        }

        @Override
        public void take(Object o) {
        }

        @Override
        public Object unserializable() {
            return new Object();
        }

        @Override
        public void unserializableException() throws BadOops {
            throw new BadOops("cannot travel");
        }

        @Override
        public Object echo(Object o) {
            return o;
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> l = new ArrayList<>();
        for (Serializer s : Serializer.values()) {
            for (Path p : Path.values()) {
                l.add(Arguments.of(s, p));
            }
        }
        return l.stream();
    }

    private static Method m(String name) {
        for (Method m : Conf.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** A rig with a Conf exported (optionally with a filter); {@link #remora} and {@link #jrmp} call it. */
    private static final class Setup implements AutoCloseable {
        final Rig rig;
        final Path path;
        final Object rigRef;
        final Remote stub;

        Setup(Serializer s, Path path, RouterOptions server, ObjectInputFilter filter) throws Throwable {
            rig = new Rig(Rig.options(s), server.serializer(s));
            this.path = path;
            Impl impl = new Impl();
            rigRef = filter == null ? rig.export(impl) : rig.export(impl, filter);
            stub = rig.stub(impl);
        }

        Setup(Serializer s, Path path) throws Throwable {
            this(s, path, Rig.options(s), null);
        }

        Object[] remora(String name, Object... args) throws Exception {
            Method m = m(name);
            long hash;
            try {
                hash = RmiInternals.methodHash(m);
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
            Object[] r = path == Path.NETWORK ? rig.client.invoke(rigRef, null, m, args, hash)
                    : rig.server.invoke(Rig.refOf(stub), stub, m, args, hash);
            assertNotNull(r, () -> "the call went to JRMP; notes: " + rig.notes);
            return r;
        }

        Object[] jrmp(String name, Object... args) {
            try {
                return new Object[] {m(name).invoke(stub, args), null};
            } catch (InvocationTargetException e) {
                return new Object[] {null, e.getTargetException()};
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public void close() throws IOException {
            rig.close();
        }
    }

    /** The exception's chain as "class: message / ...", or what the call returned. */
    private static String describe(Object[] outcome) {
        Throwable t = (Throwable) outcome[1];
        if (t == null) {
            return "returned " + outcome[0];
        }
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" / ");
        }
        return sb.toString();
    }

    /** Makes the call from a frame the traces can be searched for. */
    private static Object[] clientMarker(Callable<Object[]> call) throws Exception {
        return call.call();
    }

    private static int count(StackTraceElement[] trace, String method) {
        int n = 0;
        for (StackTraceElement e : trace) {
            n += e.getMethodName().equals(method) ? 1 : 0;
        }
        return n;
    }

    private static int indexOf(StackTraceElement[] trace, String method) {
        for (int i = 0; i < trace.length; i++) {
            if (trace[i].getMethodName().equals(method)) {
                return i;
            }
        }
        return -1;
    }

    @ParameterizedTest
    @MethodSource("cases")
    void serverExceptionsCarryTheServersTraceThenTheClientsOnce(Serializer s, Path p) throws Throwable {
        try (Setup c = new Setup(s, p)) {
            StackTraceElement[] jrmp = ((Throwable) clientMarker(() -> c.jrmp("fail"))[1]).getStackTrace();
            int jrmpAt = indexOf(jrmp, "exceptionReceivedFromServer");
            assertTrue(jrmpAt > 0, () -> java.util.Arrays.toString(jrmp));

            Object[] r = clientMarker(() -> c.remora("fail"));
            assertEquals(describe(clientMarker(() -> c.jrmp("fail"))), describe(r));
            StackTraceElement[] t = ((Throwable) r[1]).getStackTrace();
            String all = java.util.Arrays.toString(t);
            assertEquals(1, count(t, "clientMarker"), () -> "the client's frames once: " + all);
            assertEquals(1, count(t, "serverMarker"), all);
            int at = indexOf(t, "exceptionReceivedFromServer");
            assertTrue(indexOf(t, "serverMarker") < at && at < indexOf(t, "clientMarker"),
                    () -> "the server's frames, then JRMP's client frames: " + all);
            assertEquals(jrmp[jrmpAt], t[at], "JRMP's own frame, as this JDK has it");
            assertEquals(jrmp[jrmpAt + 1], t[at + 1], "then StreamRemoteCall.executeCall");

            // a RemoteException from the server arrives inside a ServerException; its own trace is the server's
            Object[] remote = clientMarker(() -> c.remora("remoteFail"));
            assertEquals(describe(c.jrmp("remoteFail")), describe(remote));
            StackTraceElement[] cause = ((Throwable) remote[1]).getCause().getStackTrace();
            assertEquals(0, count(cause, "clientMarker"), () -> "no client frames in the server's own exception: "
                    + java.util.Arrays.toString(cause));
            assertEquals(1, count(((Throwable) remote[1]).getStackTrace(), "clientMarker"));
        }
    }

    /** As UnicastServerRef with sun.rmi.server.suppressStackTraces=true: the server's traces are cleared. */
    @ParameterizedTest
    @MethodSource("cases")
    void suppressedStackTracesLeaveOnlyTheClientsFrames(Serializer s, Path p) throws Throwable {
        try (Setup c = new Setup(s, p, Rig.options(s).suppressStackTraces(true), null)) {
            Object[] r = clientMarker(() -> c.remora("fail"));
            StackTraceElement[] t = ((Throwable) r[1]).getStackTrace();
            String all = java.util.Arrays.toString(t);
            assertEquals(0, count(t, "serverMarker"), all);
            assertEquals(1, count(t, "clientMarker"), all);
            assertEquals("exceptionReceivedFromServer", t[0].getMethodName(), all);
            Object[] remote = clientMarker(() -> c.remora("remoteFail"));
            assertEquals(0, ((Throwable) remote[1]).getCause().getStackTrace().length, "causes' traces too");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void anErrorOrRuntimeExceptionWhileReadingTheResultIsThrownAsIs(Serializer s, Path p) throws Throwable {
        try (Setup c = new Setup(s, p)) {
            for (boolean error : new boolean[] {true, false}) {
                Object[] r = c.remora("poison", error);
                assertEquals(describe(c.jrmp("poison", error)), describe(r));
                assertEquals(error ? PoisonError.class : IllegalStateException.class, r[1].getClass());
            }
            assertEquals("returned fine", describe(c.remora("echo", "fine")), "the connection is still usable");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aRuntimeExceptionWhileWritingTheArgumentsIsThrownAsIs(Serializer s, Path p) throws Throwable {
        try (Setup c = new Setup(s, p)) {
            Object[] r = c.remora("take", new Bomb());
            assertEquals(describe(c.jrmp("take", new Bomb())), describe(r));
            assertEquals(IllegalArgumentException.class, r[1].getClass());
            assertEquals("returned fine", describe(c.remora("echo", "fine")));
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aResultThatCannotBeSerializedIsAnUnmarshalExceptionOfAWriteAbortedException(Serializer s, Path p)
            throws Throwable {
        try (Setup c = new Setup(s, p)) {
            Object[] r = c.remora("unserializable");
            String jrmp = describe(c.jrmp("unserializable"));
            assertTrue(jrmp.startsWith("java.rmi.UnmarshalException: error unmarshalling return"), jrmp);
            assertEquals(jrmp, describe(r));
            assertEquals("returned fine", describe(c.remora("echo", "fine")));
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void anExceptionThatCannotBeSerializedIsAnUnmarshalExceptionOfAWriteAbortedException(Serializer s, Path p)
            throws Throwable {
        try (Setup c = new Setup(s, p)) {
            Object[] r = c.remora("unserializableException");
            String jrmp = describe(c.jrmp("unserializableException"));
            assertTrue(jrmp.startsWith("java.rmi.UnmarshalException: Error unmarshaling return"), jrmp);
            assertEquals(jrmp, describe(r));
            assertEquals("returned fine", describe(c.remora("echo", "fine")));
        }
    }

    /**
     * As under JRMP, an object that was called and then unexported is collected: the state a connection's reader or a
     * thread reuses for its calls keeps nothing of the last one.
     */
    @ParameterizedTest
    @MethodSource("cases")
    void anUnexportedObjectIsCollectedAfterItsCalls(Serializer s, Path p) throws Throwable {
        try (Rig rig = new Rig(Rig.options(s), Rig.options(s).dispatch(RouterOptions.Dispatch.INLINE))) {
            Impl impl = new Impl();
            Object rigRef = rig.export(impl);
            Remote stub = rig.stub(impl);
            Method fail = m("fail");
            long hash = RmiInternals.methodHash(fail);
            Object[] r = p == Path.NETWORK ? rig.client.invoke(rigRef, null, fail, new Object[0], hash)
                    : rig.server.invoke(Rig.refOf(stub), stub, fail, new Object[0], hash);
            assertEquals(Oops.class, r[1].getClass());
            java.lang.ref.WeakReference<Impl> gone = new java.lang.ref.WeakReference<>(impl);
            rig.unexport(impl);
            impl = null;
            stub = null;
            for (int i = 0; i < 50 && gone.get() != null; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertTrue(gone.get() == null, "the unexported object is still reachable");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theExportsFilterAppliesWithEitherSerializer(Serializer s, Path p) throws Throwable {
        ObjectInputFilter noPoints = ObjectInputFilter.Config.createFilter("!" + Point.class.getName());
        try (Setup c = new Setup(s, p, Rig.options(s), noPoints)) {
            Object[] r = c.remora("echo", new Point(1));
            assertEquals(describe(c.jrmp("echo", new Point(1))), describe(r));
            assertEquals("returned fine", describe(c.remora("echo", "fine")));
        }
    }
}
