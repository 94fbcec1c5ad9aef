package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.jdk.RmiInternals;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.RemoteObject;
import java.rmi.server.RemoteObjectInvocationHandler;
import java.rmi.server.RemoteServer;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The co-located short-cut in-process, with real RMI objects and no agent: the router is told about an export as the
 * export hook would, and a call through the stub's own UnicastRef runs the implementation with no connection. Each
 * outcome is compared with the same call made by plain JRMP over loopback (this JVM has no agent, so calling the stub
 * is JRMP).
 */
class LocalCallTest {

    public static class AppException extends Exception {
        public AppException(String m) {
            super(m);
        }
    }

    public interface Svc extends Remote {
        /** Appends to {@code sb} and to {@code list}; says whether list.get(0) is sb (identity within one call). */
        String mutate(ArrayList<StringBuilder> list, StringBuilder sb) throws RemoteException;

        /** The implementation's own object. */
        StringBuilder state() throws RemoteException;

        int add(int a, int b) throws RemoteException;

        void declared() throws AppException, RemoteException;

        void remote() throws RemoteException;

        void error() throws RemoteException;

        void runtime() throws RemoteException;

        String clientHost() throws RemoteException;

        String loader() throws RemoteException;
    }

    public interface Missing extends Remote {
        String notThere(String s) throws RemoteException;
    }

    static final class Impl implements Svc {
        final StringBuilder state = new StringBuilder("state");

        @Override
        public String mutate(ArrayList<StringBuilder> list, StringBuilder sb) {
            boolean same = list.get(0) == sb;
            sb.append("+callee");
            list.add(new StringBuilder("added"));
            return "same=" + same + " " + sb;
        }

        @Override
        public StringBuilder state() {
            return state;
        }

        @Override
        public int add(int a, int b) {
            return a + b;
        }

        @Override
        public void declared() throws AppException {
            throw new AppException("declared");
        }

        @Override
        public void remote() throws RemoteException {
            throw new RemoteException("the application's own");
        }

        @Override
        public void error() {
            throw new InternalError("boom");
        }

        @Override
        public void runtime() {
            throw new IllegalStateException("runtime");
        }

        @Override
        public String clientHost() throws RemoteException {
            try {
                return RemoteServer.getClientHost();
            } catch (Exception e) {
                return e.toString();
            }
        }

        @Override
        public String loader() {
            return Thread.currentThread().getContextClassLoader().getName();
        }
    }

    private final AtomicLong bytes = new AtomicLong();
    private RemoraRouter router;
    private Impl impl;
    private Svc stub;
    private Object ref;
    private Impl keeper;

    private void setUp(RouterOptions.Serializer serializer) throws Throwable {
        router = new RemoraRouter(RouterOptions.defaults().serializer(serializer)
                .transport(RouterOptions.Transport.SOCKET).probeTimeoutMillis(5000).listener(new RouterListener() {
                    @Override
                    public void bytes(long out, long in) {
                        bytes.addAndGet(out + in);
                    }

                    @Override
                    public void note(String key, String message) {
                    }
                }));
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        t.setContextClassLoader(new URLClassLoader("impl-loader", new URL[0], saved));
        try {
            impl = new Impl();
            stub = (Svc) UnicastRemoteObject.exportObject(impl, 0);
        } finally {
            t.setContextClassLoader(saved);
        }
        keeper = new Impl(); // keeps the anonymous port open after impl is unexported
        UnicastRemoteObject.exportObject(keeper, 0);
        ref = refOf(stub);
        router.exported(ref, impl, stub);
    }

    @BeforeEach
    void nothing() {
        bytes.set(0);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Remote r : new Remote[] {impl, keeper}) {
            try {
                UnicastRemoteObject.unexportObject(r, true);
            } catch (NoSuchObjectException ignored) {
                // the test did
            }
        }
    }

    static Object refOf(Object stub) {
        Object o = Proxy.isProxyClass(stub.getClass()) ? Proxy.getInvocationHandler(stub) : stub;
        return ((RemoteObject) o).getRef();
    }

    private Object[] local(Method m, Object... args) throws Throwable {
        Object[] r = router.invoke(ref, stub, m, args, RmiInternals.methodHash(m));
        assertNotNull(r, "the call was left to JRMP instead of short-cut");
        return r;
    }

    private Object[] jrmp(Object target, Method m, Object... args) {
        try {
            return new Object[] {m.invoke(target, args), null};
        } catch (java.lang.reflect.InvocationTargetException e) {
            return new Object[] {null, e.getTargetException()};
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

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

    private static Method m(String name) {
        for (Method m : Svc.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Serializer.class)
    void argumentsAndResultsAreCopies(RouterOptions.Serializer serializer) throws Throwable {
        setUp(serializer);
        StringBuilder sb = new StringBuilder("caller");
        ArrayList<StringBuilder> list = new ArrayList<>(Arrays.asList(sb, sb));
        Object[] r = local(m("mutate"), list, sb);
        assertNull(r[1]);
        assertEquals("same=true caller+callee", r[0], "identity within the call's graph is kept");
        assertEquals("caller", sb.toString(), "the callee worked on a copy");
        assertEquals(2, list.size());
        assertEquals(describe(jrmp(stub, m("mutate"), list, sb)), describe(r));

        StringBuilder s = (StringBuilder) local(m("state"))[0];
        s.append(" changed by the caller");
        assertEquals("state", impl.state.toString(), "the result is a copy");
        assertEquals(42, local(m("add"), 40, 2)[0]);
        assertEquals(0, bytes.get(), "no Remora connection");
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Serializer.class)
    void exceptionsLoaderAndClientHostAreJrmps(RouterOptions.Serializer serializer) throws Throwable {
        setUp(serializer);
        for (String name : new String[] {"declared", "remote", "error", "runtime", "clientHost", "loader"}) {
            Object[] r = local(m(name));
            assertEquals(describe(jrmp(stub, m(name))), describe(r), name);
            if (r[1] != null) {
                StringBuilder chain = new StringBuilder();
                for (Throwable c = (Throwable) r[1]; c != null; c = c.getCause()) {
                    chain.append(Arrays.toString(c.getStackTrace()));
                }
                String top = Arrays.toString(((Throwable) r[1]).getStackTrace());
                String trace = chain.toString();
                assertTrue(trace.contains("LocalCallTest$Impl") && top.contains("LocalCallTest.local"),
                        () -> name + ": the callee's trace, then the caller's: " + trace);
            }
        }
        assertEquals("returned impl-loader", describe(local(m("loader"))));

        // A method the implementation does not have, with an argument (the fast channel skips its message).
        Method missing = Missing.class.getMethod("notThere", String.class);
        Missing jrmpMissing = (Missing) Proxy.newProxyInstance(Missing.class.getClassLoader(),
                new Class<?>[] {Missing.class}, new RemoteObjectInvocationHandler(((RemoteObject) Proxy
                        .getInvocationHandler(stub)).getRef()));
        Object[] r = router.invoke(ref, null, missing, new Object[] {"x"}, RmiInternals.methodHash(missing));
        assertNotNull(r);
        assertEquals(describe(jrmp(jrmpMissing, missing, "x")), describe(r));
        ArrayList<StringBuilder> list = new ArrayList<>(List.of(new StringBuilder("a")));
        assertEquals("returned same=true a+callee", describe(local(m("mutate"), list, list.get(0))),
                "the channel is still in step");
        assertEquals(0, bytes.get(), "no Remora connection");
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Serializer.class)
    void anUnexportedObjectIsLeftToTheNetworkPath(RouterOptions.Serializer serializer) throws Throwable {
        setUp(serializer);
        assertEquals(3, local(m("add"), 1, 2)[0]);
        UnicastRemoteObject.unexportObject(impl, true);
        Method add = m("add");
        // No short-cut; the port answers JRMP only (no accept hook here), so the router leaves the call to JRMP,
        // which says what a remote caller hears.
        assertNull(router.invoke(ref, stub, add, new Object[] {1, 2}, RmiInternals.methodHash(add)));
        Object[] r = jrmp(stub, add, 1, 2);
        assertTrue(r[1] instanceof NoSuchObjectException, () -> describe(r));
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Serializer.class)
    void aSameObjIdOnAnotherPortIsNotShortCut(RouterOptions.Serializer serializer) throws Throwable {
        setUp(serializer);
        // A ref with the export's ObjID but another port (as a stub from another JVM could have) goes to the network.
        Object liveRef = RmiInternals.liveRef(ref);
        ClassLoader rmi = Remote.class.getClassLoader();
        Class<?> ep = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
        Object other;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
            other = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi)
                    .getConstructor(String.class, int.class).newInstance("127.0.0.1", closed.getLocalPort());
        }
        Class<?> liveRefClass = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
        Object otherLive = liveRefClass.getConstructor(java.rmi.server.ObjID.class, ep, boolean.class)
                .newInstance(RmiInternals.objId(liveRef), other, false);
        Object otherRef = Class.forName("sun.rmi.server.UnicastRef", false, rmi).getConstructor(liveRefClass)
                .newInstance(otherLive);
        Method add = m("add");
        Object[] r;
        try {
            r = router.invoke(otherRef, null, add, new Object[] {1, 2}, RmiInternals.methodHash(add));
        } catch (Exception e) {
            r = null; // nothing listens there: the router leaves the call to JRMP by throwing before sending
        }
        assertNull(r, "not short-cut");
    }
}
