package dev.remora.rmi.fast;

import dev.remora.rmi.RemoraRouter;
import dev.remora.rmi.RouterListener;
import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.SocketTechnology;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.Remote;
import java.rmi.server.ObjID;
import java.rmi.server.RemoteObject;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two {@link RemoraRouter}s in one JVM joined over loopback: the server router serves connections accepted on its own
 * port (as the agent's accept hook would on JRMP's), and the client router is handed a UnicastRef whose endpoint is
 * that port and whose ObjID is the real exported object's, so calls take Remora's path with real RMI objects (stubs,
 * DGC, ObjectTable) and no agent. Needs the --add-opens of this module's surefire configuration.
 */
final class Rig implements AutoCloseable {
    final AtomicInteger descriptors = new AtomicInteger();
    final AtomicInteger handoffs = new AtomicInteger();
    final List<String> notes = new ArrayList<>();
    /** One-way calls that threw on the server: "method: exception". */
    final List<String> onewayFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicInteger onewaySent = new AtomicInteger();
    final AtomicInteger futuresMade = new AtomicInteger();
    final AtomicInteger unconfirmed = new AtomicInteger();
    /** Writes of held-back one-way calls, and the calls they carried. */
    final AtomicInteger onewayBatches = new AtomicInteger();
    final AtomicInteger onewayBatched = new AtomicInteger();
    /** Writes of held-back future replies (server), and the replies they carried. */
    final AtomicInteger replyBatches = new AtomicInteger();
    final AtomicInteger replyBatched = new AtomicInteger();
    final RemoraRouter client;
    final RemoraRouter server;
    private final ServerSocket ss;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Remote> exported = new ArrayList<>();
    /** impl to the stub JRMP made for it: for co-located calls (through the server router) and plain JRMP ones. */
    private final java.util.Map<Remote, Remote> stubs = new java.util.IdentityHashMap<>();
    private final Thread acceptor;
    private int acceptedCount; // by the acceptor thread: the first connection's thread is rig-conn, then rig-conn-N

    Rig(RouterOptions clientOptions, RouterOptions serverOptions) throws IOException {
        RouterListener l = new RouterListener() {
            @Override
            public void bytes(long out, long in) {
            }

            @Override
            public void note(String key, String message) {
                synchronized (notes) {
                    notes.add(key + ": " + message);
                }
            }

            @Override
            public void typeDescriptors(int n) {
                descriptors.addAndGet(n);
            }

            @Override
            public void handoff() {
                handoffs.incrementAndGet();
            }

            @Override
            public void asyncCall(boolean future) {
                (future ? futuresMade : onewaySent).incrementAndGet();
            }

            @Override
            public void onewayBatch(int calls) {
                onewayBatches.incrementAndGet();
                onewayBatched.addAndGet(calls);
            }

            @Override
            public void replyBatch(int replies) {
                replyBatches.incrementAndGet();
                replyBatched.addAndGet(replies);
            }

            @Override
            public void onewayFailed(String method, Throwable thrown) {
                onewayFailures.add(method + ": " + thrown);
            }

            @Override
            public void onewayUnconfirmed(int n, String message) {
                unconfirmed.addAndGet(n);
                note("oneway-unconfirmed", message);
            }
        };
        // on TCP (not a Unix domain socket, as two routers of one host would take): the server's accepted sockets are
        // the tests' handle on its connections (dropConnections, accepted)
        client = new RemoraRouter(clientOptions.listener(l).transport(RouterOptions.Transport.SOCKET)
                .socketUnix(false, null));
        server = new RemoraRouter(serverOptions.listener(l).transport(RouterOptions.Transport.SOCKET)
                .socketUnix(false, null));
        ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "rig-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static RouterOptions options(RouterOptions.Serializer s) {
        return RouterOptions.defaults().serializer(s).probeTimeoutMillis(5000);
    }

    private void acceptLoop() {
        while (!ss.isClosed()) {
            try {
                Socket s = ss.accept();
                synchronized (sockets) {
                    sockets.add(s);
                }
                Thread t = new Thread(() -> {
                    try {
                        server.accept(null, s);
                    } catch (IOException ignored) {
                        // the test closed it
                    }
                }, acceptedCount++ == 0 ? "rig-conn" : "rig-conn-" + acceptedCount); // remora.connections' spares
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Exports impl with JRMP, registers it with the server router, and returns a ref that leads to the rig. */
    Object export(Remote impl) throws Throwable {
        Remote stub = UnicastRemoteObject.exportObject(impl, 0);
        return register(impl, stub);
    }

    Object export(Remote impl, java.io.ObjectInputFilter filter) throws Throwable {
        Remote stub = UnicastRemoteObject.exportObject(impl, 0, filter);
        return register(impl, stub);
    }

    private Object register(Remote impl, Remote stub) throws Throwable {
        exported.add(impl);
        stubs.put(impl, stub);
        Object realRef = refOf(stub);
        server.exported(realRef, impl, stub);
        ObjID id = RmiInternals.objId(RmiInternals.liveRef(realRef));
        ClassLoader rmi = Remote.class.getClassLoader();
        Class<?> ep = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
        Constructor<?> tcp = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi)
                .getConstructor(String.class, int.class);
        Object endpoint = tcp.newInstance(ss.getInetAddress().getHostAddress(), ss.getLocalPort());
        Class<?> liveRefClass = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
        Object liveRef = liveRefClass.getConstructor(ObjID.class, ep, boolean.class).newInstance(id, endpoint, false);
        return Class.forName("sun.rmi.server.UnicastRef", false, rmi).getConstructor(liveRefClass)
                .newInstance(liveRef);
    }

    /**
     * A raw link to the rig's server over {@code socket} (connected to {@link #port}), after Remora's hello asking for
     * the socket technology, for tests that write frames by hand.
     */
    static Link rawLink(Socket socket) throws IOException {
        FrameBuffer hello = Frame.hello(Frame.TECH_SOCKET);
        socket.getOutputStream().write(hello.array(), 0, hello.length());
        byte[] answer = socket.getInputStream().readNBytes(Frame.HELLO_LENGTH);
        if (answer.length < Frame.HELLO_LENGTH || answer[6] != Frame.TECH_SOCKET) {
            throw new IOException("the server did not choose the socket technology: "
                    + java.util.Arrays.toString(answer));
        }
        return new SocketTechnology(1 << 20, 0).open(socket, true);
    }

    /** The port the rig's server router serves (as JRMP's port would be). */
    int port() {
        return ss.getLocalPort();
    }

    /** A UnicastRef for object {@code id} at host:port, as a stub from elsewhere would carry. */
    static Object refTo(String host, int port, ObjID id) throws Throwable {
        ClassLoader rmi = Remote.class.getClassLoader();
        Class<?> ep = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
        Object endpoint = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi)
                .getConstructor(String.class, int.class).newInstance(host, port);
        Class<?> liveRefClass = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
        Object liveRef = liveRefClass.getConstructor(ObjID.class, ep, boolean.class).newInstance(id, endpoint, false);
        return Class.forName("sun.rmi.server.UnicastRef", false, rmi).getConstructor(liveRefClass)
                .newInstance(liveRef);
    }

    /** Unexports {@code impl} and keeps no reference to it (a test may then watch it being collected). */
    void unexport(Remote impl) throws java.rmi.NoSuchObjectException {
        exported.remove(impl);
        stubs.remove(impl);
        UnicastRemoteObject.unexportObject(impl, true);
    }

    /** The stub JRMP made when {@code impl} was exported by {@link #export}. */
    Remote stub(Remote impl) {
        return stubs.get(impl);
    }

    /** Closes every connection the server accepted so far, as a server that died would have them closed. */
    void dropConnections() throws IOException {
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
            sockets.clear();
        }
    }

    List<String> notes() {
        synchronized (notes) {
            return new ArrayList<>(notes);
        }
    }

    /** Server-side sockets accepted so far (closed when their connection ended). */
    List<Socket> accepted() {
        synchronized (sockets) {
            return new ArrayList<>(sockets);
        }
    }

    /** The UnicastRef inside a stub (a dynamic proxy or a RemoteStub). */
    static Object refOf(Object stub) {
        Object o = java.lang.reflect.Proxy.isProxyClass(stub.getClass())
                ? java.lang.reflect.Proxy.getInvocationHandler(stub) : stub;
        return ((RemoteObject) o).getRef();
    }

    /** One call through the client router: {result, exception}, or null when it left the call to JRMP. */
    Object[] call(Object ref, Method m, Object... args) throws Throwable {
        return client.invoke(ref, null, m, args, RmiInternals.methodHash(m));
    }

    /** The result, or the exception the call ended with, thrown. */
    Object result(Object ref, Method m, Object... args) throws Throwable {
        Object[] r = call(ref, m, args);
        if (r == null) {
            throw new AssertionError("the call went to JRMP; notes: " + notes);
        }
        if (r[1] != null) {
            throw (Throwable) r[1];
        }
        return r[0];
    }

    @Override
    public void close() throws IOException {
        ss.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
        for (Remote r : exported) {
            UnicastRemoteObject.unexportObject(r, true);
        }
    }
}
