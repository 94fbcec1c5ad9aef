package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RemoraRouter;
import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.NotSerializableException;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URL;
import java.net.URLClassLoader;
import java.rmi.MarshalException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.ObjID;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Objects that JRMP lets go must not be kept reachable by Remora (the JDK's jtreg tests UnexportLeak,
 * PinLastArguments, RuntimeThreadInheritanceLeak, PinClientSocketFactory and DGCAckFailure, in-process). Each test
 * watches the object through a WeakReference while it asks for garbage collections, a bounded number of times.
 */
class ReachabilityTest {

    public interface Ping extends Remote {
        void ping(Object first, Object second) throws RemoteException;

        /** A newly exported object, which nothing but the result refers to. */
        Remote fresh() throws RemoteException;
    }

    public interface Holder extends Remote {
        void hold(Remote r) throws RemoteException;
    }

    static final class PingImpl implements Ping {
        volatile WeakReference<Remote> lastFresh;

        @Override
        public void ping(Object first, Object second) {
        }

        @Override
        public Remote fresh() throws RemoteException {
            PingImpl p = new PingImpl();
            UnicastRemoteObject.exportObject(p, 0);
            lastFresh = new WeakReference<>(p);
            return p;
        }
    }

    static final class HolderImpl implements Holder {
        volatile Remote held;

        @Override
        public void hold(Remote r) {
            held = r;
        }
    }

    static final class Csf implements RMIClientSocketFactory, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Socket createSocket(String host, int port) throws java.io.IOException {
            return new Socket(host, port);
        }
    }

    enum Path { COLOCATED, NETWORK }

    static Stream<Arguments> cases() {
        return Stream.of(Serializer.values()).flatMap(s -> Stream.of(Path.values()).map(p -> Arguments.of(s, p)));
    }

    /** Up to 100 collections, 20 ms apart; true when {@code ref} was cleared. */
    static boolean collected(WeakReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 100 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return ref.get() == null;
    }

    private static Method m(String name) {
        for (Method m : Ping.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    /**
     * UnexportLeak: an object unexported while a client holds a reference (its Target's WeakRef is pinned by the DGC)
     * is collected once JRMP drops its Target, whether or not it was ever called.
     */
    @Test
    void anObjectUnexportedWhileReferencedIsCollected() throws Throwable {
        Serializer s = Serializer.FAST;
        HolderImpl holder = new HolderImpl();
        Holder holderStub = (Holder) UnicastRemoteObject.exportObject(holder, 0);
        try (Rig rig = new Rig(Rig.options(s), Rig.options(s))) {
            PingImpl impl = new PingImpl();
            rig.export(impl);
            holderStub.hold(rig.stub(impl)); // plain JRMP: the holder's copy of the stub makes a DGC dirty call
            assertNotNull(holder.held);
            WeakReference<PingImpl> gone = new WeakReference<>(impl);
            rig.unexport(impl);
            impl = null;
            assertTrue(collected(gone), "the unexported object is still reachable");
        } finally {
            UnicastRemoteObject.unexportObject(holder, true);
        }
    }

    /**
     * PinLastArguments: an exported object passed as an argument, once in a call that worked and once in one whose
     * arguments could not be serialized, is not kept by the writer that replaced it by its stub.
     */
    @ParameterizedTest
    @MethodSource("cases")
    void theLastCallsArgumentsAreNotKept(Serializer s, Path p) throws Throwable {
        try (Rig rig = new Rig(Rig.options(s), Rig.options(s))) {
            PingImpl impl = new PingImpl();
            Object rigRef = rig.export(impl);
            Remote stub = rig.stub(impl);
            Method ping = m("ping");
            long hash = RmiInternals.methodHash(ping);
            Supplier<RemoraRouter> router = () -> p == Path.NETWORK ? rig.client : rig.server;
            Object ref = p == Path.NETWORK ? rigRef : Rig.refOf(stub);
            Object[] r = router.get().invoke(ref, stub, ping, new Object[] {impl, null}, hash);
            assertNotNull(r, "left to JRMP");
            assertNull(r[1], () -> String.valueOf(r[1]));
            Object[] failed = router.get().invoke(ref, stub, ping, new Object[] {impl, new Object()}, hash);
            assertTrue(failed[1] instanceof MarshalException
                    && ((Throwable) failed[1]).getCause() instanceof NotSerializableException,
                    () -> String.valueOf(failed[1]));
            WeakReference<PingImpl> gone = new WeakReference<>(impl);
            rig.unexport(impl);
            impl = null;
            stub = null;
            assertTrue(collected(gone), "the last call's argument is still reachable");
        }
    }

    /**
     * RuntimeThreadInheritanceLeak: a thread Remora starts from an application thread (here the dispatch pool's)
     * does not keep that thread's context class loader.
     */
    @Test
    void remoraThreadsDoNotKeepTheirCreatorsContextClassLoader() throws Throwable {
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        URLClassLoader loader = new URLClassLoader("app-loader", new URL[0], saved);
        WeakReference<ClassLoader> gone = new WeakReference<>(loader);
        RemoraRouter router = new RemoraRouter(RouterOptions.defaults().transport(RouterOptions.Transport.SOCKET)
                .dispatch(RouterOptions.Dispatch.POOL).poolThreads(2));
        t.setContextClassLoader(loader);
        try {
            router.start();
        } finally {
            t.setContextClassLoader(saved);
        }
        loader = null;
        assertTrue(collected(gone), "a Remora thread keeps the context class loader of the thread that made it");
        for (Thread x : Thread.getAllStackTraces().keySet()) {
            if (x.getName().startsWith("remora-")) {
                assertEquals(ClassLoader.getSystemClassLoader(), x.getContextClassLoader(), x.getName());
                assertNull(x.getThreadGroup() == null ? null : x.getThreadGroup().getParent(),
                        x.getName() + ": in the system thread group, as JRMP's threads");
            }
        }
    }

    /**
     * PinClientSocketFactory: a call through a stub whose endpoint has a client socket factory (left to JRMP) does not
     * keep the factory reachable once the stub is gone.
     */
    @Test
    void aClientSocketFactoryIsNotKept() throws Throwable {
        RemoraRouter router = new RemoraRouter(RouterOptions.defaults().transport(RouterOptions.Transport.SOCKET));
        Csf csf = new Csf();
        WeakReference<Csf> gone = new WeakReference<>(csf);
        ClassLoader rmi = Remote.class.getClassLoader();
        Class<?> ep = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
        Object endpoint = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi)
                .getConstructor(String.class, int.class, RMIClientSocketFactory.class, RMIServerSocketFactory.class)
                .newInstance("127.0.0.1", 1099, csf, null);
        Class<?> liveRefClass = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
        Object liveRef = liveRefClass.getConstructor(ObjID.class, ep, boolean.class)
                .newInstance(new ObjID(), endpoint, false);
        Object ref = Class.forName("sun.rmi.server.UnicastRef", false, rmi).getConstructor(liveRefClass)
                .newInstance(liveRef);
        Method ping = m("ping");
        assertNull(router.invoke(ref, null, ping, new Object[] {null, null}, RmiInternals.methodHash(ping)),
                "a custom socket factory's endpoint is JRMP's");
        csf = null;
        endpoint = null;
        liveRef = null;
        ref = null;
        assertTrue(collected(gone), "the client socket factory is still reachable");
    }

    /**
     * DGCAckFailure: a result's exported object stays pinned while the client has not acknowledged it, but, as under
     * JRMP, no longer than the DGC ack timeout: here a client that reads its reply and never sends the ACK, on a
     * connection that stays open.
     */
    @ParameterizedTest
    @EnumSource(Serializer.class)
    void aResultThatIsNeverAcknowledgedIsLetGoAfterTheAckTimeout(Serializer s) throws Throwable {
        try (Rig rig = new Rig(Rig.options(s), Rig.options(s).dgcAckTimeoutMillis(200))) {
            PingImpl impl = new PingImpl();
            Object rigRef = rig.export(impl);
            ObjID id = RmiInternals.objId(RmiInternals.liveRef(rigRef));
            Method fresh = m("fresh");
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), rig.port())) {
                Link link = Rig.rawLink(socket);
                FrameBuffer call = new FrameBuffer(64);
                Frame.begin(call, Frame.CALL, (byte) 0, 1);
                id.write(call);
                call.writeLong(RmiInternals.methodHash(fresh));
                Frame.finish(call);
                link.send(call);
                FrameBuffer reply = link.receive((kind, callId, length) -> new FrameBuffer(length), 0);
                assertEquals(Frame.REPLY, reply.array()[Frame.OFF_KIND]);
                assertTrue((reply.array()[Frame.OFF_FLAGS] & Frame.FLAG_NEEDS_ACK) != 0, "the result is pinned");
                WeakReference<Remote> gone = impl.lastFresh;
                assertNotNull(gone.get());
                // no ACK, the connection open
                assertTrue(collected(gone), "the result's object is still pinned after the ack timeout");
            }
        }
    }
}
