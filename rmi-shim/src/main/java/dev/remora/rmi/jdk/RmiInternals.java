package dev.remora.rmi.jdk;

import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.server.ObjID;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The few JDK-internal RMI members Remora uses: the public ones called directly ({@link RmiDirect}), the others as
 * method handles looked up once. The agent opens
 * {@code sun.rmi.server}, {@code sun.rmi.transport} and {@code sun.rmi.transport.tcp} to Remora's module
 * ({@code Instrumentation.redefineModule}); tests pass {@code --add-opens}. Nothing here is called without that:
 * {@link #check()} names the fix.
 *
 * <p>Every member exists with the same signature in JDK 17 and 25.
 */
public final class RmiInternals {
    // The package-private members, as method handles looked up once, with their own types (RmiDirect invokes them
    // exactly); the public ones are called directly (RmiDirect)
    private static final MethodHandle LIVE_REF_EP;       // LiveRef.getEndpoint()
    private static final MethodHandle TARGET_IMPL;       // Target.getImpl()
    private static final MethodHandle TARGET_CCL;        // Target.getContextClassLoader()
    private static final MethodHandle TARGET_INC;        // Target.incrementCallCount()
    private static final MethodHandle TARGET_DEC;        // Target.decrementCallCount()
    private static final MethodHandle TARGET_REMOVED;    // Target.removed
    private static final MethodHandle SKIP_DEFAULT;      // MarshalInputStream.skipDefaultResolveClass()
    private static final Throwable FAILURE;

    static {
        MethodHandle[] h = new MethodHandle[7];
        Throwable failure = null;
        try {
            // Loaded, not initialized: RMI's static state (host name, random ObjIDs) must be set up by the
            // application's own first use, with its own system properties.
            ClassLoader rmi = Remote.class.getClassLoader();
            Class<?> unicastRef = Class.forName("sun.rmi.server.UnicastRef", false, rmi);
            Class<?> liveRef = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
            Class<?> endpoint = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
            Class<?> tcpEndpoint = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi);
            Class<?> target = Class.forName("sun.rmi.transport.Target", false, rmi);
            Class<?> marshalIn = Class.forName("sun.rmi.server.MarshalInputStream", false, rmi);
            MethodHandles.Lookup me = MethodHandles.lookup();
            MethodHandles.Lookup server = MethodHandles.privateLookupIn(unicastRef, me);
            MethodHandles.Lookup transport = MethodHandles.privateLookupIn(target, me);
            MethodHandles.privateLookupIn(tcpEndpoint, me); // RmiDirect's third package: fails here when not open
            h[0] = transport.findVirtual(liveRef, "getEndpoint", MethodType.methodType(endpoint));
            h[1] = transport.findVirtual(target, "getImpl", MethodType.methodType(Remote.class));
            h[2] = transport.findVirtual(target, "getContextClassLoader", MethodType.methodType(ClassLoader.class));
            h[3] = transport.findVirtual(target, "incrementCallCount", MethodType.methodType(void.class));
            h[4] = transport.findVirtual(target, "decrementCallCount", MethodType.methodType(void.class));
            h[5] = transport.findGetter(target, "removed", boolean.class);
            h[6] = server.findVirtual(marshalIn, "skipDefaultResolveClass", MethodType.methodType(void.class));
        } catch (Throwable t) {
            failure = t;
        }
        LIVE_REF_EP = h[0];
        TARGET_IMPL = h[1];
        TARGET_CCL = h[2];
        TARGET_INC = h[3];
        TARGET_DEC = h[4];
        TARGET_REMOVED = h[5];
        SKIP_DEFAULT = h[6];
        FAILURE = failure;
    }

    private RmiInternals() {
    }

    /** Throws, naming the fix, when the JDK's RMI internals are not reachable. */
    public static void check() {
        if (FAILURE != null) {
            throw new IllegalStateException("Remora cannot reach the JDK's RMI internals (" + FAILURE + "): the agent"
                    + " opens sun.rmi.server, sun.rmi.transport and sun.rmi.transport.tcp to itself; outside the agent"
                    + " pass --add-opens java.rmi/<package>=ALL-UNNAMED for each", FAILURE);
        }
    }

    /** The LiveRef of a {@code sun.rmi.server.UnicastRef} (client) or {@code UnicastServerRef} (server). */
    public static Object liveRef(Object unicastRef) throws Throwable {
        return RmiDirect.liveRef(unicastRef);
    }

    public static ObjID objId(Object liveRef) throws Throwable {
        return RmiDirect.objId(liveRef);
    }

    /** The LiveRef's endpoint: a TCPEndpoint, whose equals/hashCode cover host, port and both socket factories. */
    public static Object endpoint(Object liveRef) throws Throwable {
        return RmiDirect.liveRefEndpoint(LIVE_REF_EP, liveRef);
    }

    public static boolean isTcpEndpoint(Object ep) {
        return ep != null && ep.getClass().getName().equals("sun.rmi.transport.tcp.TCPEndpoint");
    }

    public static String host(Object tcpEndpoint) throws Throwable {
        return RmiDirect.host(tcpEndpoint);
    }

    public static int port(Object tcpEndpoint) throws Throwable {
        return RmiDirect.port(tcpEndpoint);
    }

    /** True when the endpoint uses custom socket factories (SSL, ...): Remora leaves it to JRMP. */
    public static boolean hasSocketFactories(Object tcpEndpoint) throws Throwable {
        return RmiDirect.clientSocketFactory(tcpEndpoint) != null || RmiDirect.serverSocketFactory(tcpEndpoint) != null;
    }

    /** ObjectTable's Target of an exported object, or null. */
    public static Object target(Remote impl) throws Throwable {
        return RmiDirect.target(impl);
    }

    public static Remote targetImpl(Object target) throws Throwable {
        return RmiDirect.targetImpl(TARGET_IMPL, target);
    }

    public static Remote targetStub(Object target) throws Throwable {
        return RmiDirect.targetStub(target);
    }

    public static ClassLoader targetLoader(Object target) throws Throwable {
        return RmiDirect.targetLoader(TARGET_CCL, target);
    }

    /** As Transport.serviceCall: throws NoSuchObjectException when the object is being unexported. */
    public static void enterCall(Object target) throws NoSuchObjectException {
        try {
            RmiDirect.targetCall(TARGET_INC, target);
        } catch (NoSuchObjectException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public static void exitCall(Object target) {
        try {
            RmiDirect.targetCall(TARGET_DEC, target);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public static boolean targetRemoved(Object target) throws Throwable {
        return RmiDirect.targetRemoved(TARGET_REMOVED, target);
    }

    /**
     * RMI's own input stream (class annotations, codebase loading, LiveRef DGC registration); the JVM-wide
     * ObjectInputFilter applies as for any ObjectInputStream.
     */
    public static ObjectInputStream marshalInput(InputStream in, boolean server) throws Throwable {
        ObjectInputStream s = RmiDirect.marshalInput(in);
        if (server) {
            RmiDirect.skipDefaultResolveClass(SKIP_DEFAULT, s);
        }
        return s;
    }

    /** RMI's method hash, exactly as stubs compute it. */
    public static long methodHash(Method m) throws Throwable {
        return RmiDirect.methodHash(m);
    }

    /**
     * JRMP's own {@code Method} objects for the remote methods of {@code implClass}, by method hash
     * ({@code UnicastServerRef.hashToMethod_Maps}, which the JDK fills once per class): java.rmi made each accessible
     * for itself, so they can be invoked where a remote interface's package is exported to java.rmi only (a named
     * module's {@code exports p to java.rmi}), which Remora's own {@code Method} cannot. Looked up on first use.
     */
    public static java.util.Map<Long, Method> jrmpMethods(Class<?> implClass) throws ReflectiveOperationException {
        return JrmpMethods.of(implClass);
    }

    private static final class JrmpMethods {
        static final Object MAPS;   // UnicastServerRef.hashToMethod_Maps, a WeakClassHashMap<Map<Long, Method>>
        static final Method GET;    // WeakClassHashMap.get(Class)
        static final ReflectiveOperationException FAILURE;

        static {
            Object maps = null;
            Method get = null;
            ReflectiveOperationException failure = null;
            try {
                maps = Settings.staticField("sun.rmi.server.UnicastServerRef", "hashToMethod_Maps").get(null);
                get = Class.forName("sun.rmi.server.WeakClassHashMap", false, Remote.class.getClassLoader())
                        .getMethod("get", Class.class);
                get.setAccessible(true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                failure = e instanceof ReflectiveOperationException ? (ReflectiveOperationException) e
                        : new ReflectiveOperationException(e);
            }
            MAPS = maps;
            GET = get;
            FAILURE = failure;
        }

        @SuppressWarnings("unchecked")
        static java.util.Map<Long, Method> of(Class<?> implClass) throws ReflectiveOperationException {
            if (FAILURE != null) {
                throw FAILURE;
            }
            return (java.util.Map<Long, Method>) GET.invoke(MAPS, implClass);
        }
    }

    /** Target.getDispatcher() and UnicastServerRef.filter, looked up on first use (fast serializer only). */
    private static final class Filters {
        static final MethodHandle DISPATCHER;
        static final MethodHandle FILTER;
        static final Class<?> SERVER_REF;

        static {
            try {
                ClassLoader rmi = Remote.class.getClassLoader();
                Class<?> target = Class.forName("sun.rmi.transport.Target", false, rmi);
                Class<?> dispatcher = Class.forName("sun.rmi.server.Dispatcher", false, rmi);
                SERVER_REF = Class.forName("sun.rmi.server.UnicastServerRef", false, rmi);
                MethodHandles.Lookup me = MethodHandles.lookup();
                DISPATCHER = MethodHandles.privateLookupIn(target, me)
                        .findVirtual(target, "getDispatcher", MethodType.methodType(dispatcher));
                FILTER = MethodHandles.privateLookupIn(SERVER_REF, me)
                        .findGetter(SERVER_REF, "filter", ObjectInputFilter.class);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("UnicastServerRef.filter not reachable: " + e, e);
            }
        }
    }

    /**
     * The filter an object was exported with ({@code UnicastRemoteObject.exportObject(obj, port, filter)}), which
     * {@code UnicastServerRef.unmarshalCustomCallData} sets on the argument stream; null for none.
     */
    public static ObjectInputFilter targetFilter(Object target) throws Throwable {
        Object disp = RmiDirect.targetDispatcher(Filters.DISPATCHER, target);
        return Filters.SERVER_REF.isInstance(disp) ? RmiDirect.serverRefFilter(Filters.FILTER, disp) : null;
    }

    /**
     * {@code TCPTransport.threadConnectionHandler}, read on first use (a JRMP connection was accepted, so the class is
     * initialized by then).
     */
    private static final class Handlers {
        static final ThreadLocal<Object> CONNECTION_HANDLER;

        static {
            try {
                Field f = Class.forName("sun.rmi.transport.tcp.TCPTransport", false, Remote.class.getClassLoader())
                        .getDeclaredField("threadConnectionHandler");
                f.setAccessible(true);
                @SuppressWarnings("unchecked")
                ThreadLocal<Object> t = (ThreadLocal<Object>) f.get(null);
                CONNECTION_HANDLER = t;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("TCPTransport.threadConnectionHandler not reachable: " + e, e);
            }
        }
    }

    /**
     * TCPTransport's internals, looked up on first use: the ConnectionHandler constructor and TCPEndpoint.transport
     * (co-located calls), a ConnectionHandler's transport and that transport's endpoint (accepted connections).
     */
    private static final class TransportHandles {
        static final MethodHandle NEW_HANDLER; // new TCPTransport.ConnectionHandler(TCPTransport, Socket, String)
        static final MethodHandle EP_TRANSPORT; // TCPEndpoint.transport
        static final MethodHandle HANDLER_TRANSPORT; // ConnectionHandler.this$0: the TCPTransport that accepted it
        static final MethodHandle TRANSPORT_ENDPOINT; // TCPTransport.getEndpoint()

        static {
            try {
                ClassLoader rmi = Remote.class.getClassLoader();
                Class<?> transport = Class.forName("sun.rmi.transport.tcp.TCPTransport", false, rmi);
                Class<?> handler = Class.forName("sun.rmi.transport.tcp.TCPTransport$ConnectionHandler", false, rmi);
                Class<?> tcpEndpoint = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi);
                MethodHandles.Lookup l = MethodHandles.privateLookupIn(transport, MethodHandles.lookup());
                MethodType objectToObject = MethodType.methodType(Object.class, Object.class);
                NEW_HANDLER = l.findConstructor(handler, MethodType.methodType(void.class, transport,
                        java.net.Socket.class, String.class)).asType(MethodType.methodType(Object.class,
                        Object.class, java.net.Socket.class, String.class));
                EP_TRANSPORT = MethodHandles.privateLookupIn(tcpEndpoint, MethodHandles.lookup())
                        .findGetter(tcpEndpoint, "transport", transport);
                HANDLER_TRANSPORT = MethodHandles.privateLookupIn(handler, MethodHandles.lookup())
                        .findGetter(handler, "this$0", transport).asType(objectToObject);
                TRANSPORT_ENDPOINT = l.findVirtual(transport, "getEndpoint", MethodType.methodType(tcpEndpoint))
                        .asType(objectToObject);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("TCPTransport's internals not reachable: " + e, e);
            }
        }
    }

    /**
     * A JRMP ConnectionHandler of the transport that serves {@code localEndpoint} (an endpoint of this JVM), with no
     * socket, whose {@code getClientHost()} answers {@code clientHost}: set as the thread's handler during a
     * co-located call so {@code RemoteServer.getClientHost()} answers as under JRMP.
     */
    public static Object localConnectionHandler(Object localEndpoint, String clientHost) throws Throwable {
        Object transport = RmiDirect.endpointTransport(TransportHandles.EP_TRANSPORT, localEndpoint);
        if (transport == null) {
            throw new IllegalStateException("the endpoint has no transport: not an endpoint of this JVM");
        }
        return TransportHandles.NEW_HANDLER.invokeExact(transport, (java.net.Socket) null, clientHost);
    }

    /**
     * True when the JRMP transport that accepted {@code connectionHandler}'s connection listens through a custom
     * RMIServerSocketFactory: the objects exported there are JRMP's alone (Remora does not serve objects exported with
     * socket factories), even when that factory's sockets are plain {@code Socket}s.
     */
    public static boolean acceptedByServerSocketFactory(Object connectionHandler) throws Throwable {
        Object transport = TransportHandles.HANDLER_TRANSPORT.invokeExact(connectionHandler);
        Object ep = TransportHandles.TRANSPORT_ENDPOINT.invokeExact(transport);
        return RmiDirect.serverSocketFactory(ep) != null;
    }

    /**
     * JRMP's own settings, read from the JDK's fields, so that each has the value JRMP itself uses: the JDK reads its
     * {@code sun.rmi.*} properties once, when the class that holds the setting is initialized (the application's
     * first export, accept or outgoing connection), not when Remora starts; a property the application sets in
     * {@code main} before that counts, as it does for JRMP. Looked up on first use; reading initializes the class.
     */
    private static final class Settings {
        static int intField(String className, String field, String property, int dflt) {
            try {
                return staticField(className, field).getInt(null);
            } catch (Throwable t) {
                return Integer.getInteger(property, dflt); // what that field is initialized from
            }
        }

        /**
         * A private static field, made accessible (reflection, not a method handle: on JDK 17 a field read this way
         * spins no class). Reading it initializes its class.
         */
        static Field staticField(String className, String field) throws ReflectiveOperationException {
            Class<?> c = Class.forName(className, true, Remote.class.getClassLoader());
            Field f = c.getDeclaredField(field);
            f.setAccessible(true);
            return f;
        }

        static long longField(String className, String field, String property, long dflt) {
            try {
                return staticField(className, field).getLong(null);
            } catch (Throwable t) {
                return Long.getLong(property, dflt);
            }
        }

        static boolean booleanField(String className, String field, String property) {
            try {
                return staticField(className, field).getBoolean(null);
            } catch (Throwable t) {
                return Boolean.getBoolean(property);
            }
        }
    }

    private static final class AckTimeout {
        static final long VALUE = Settings.longField("sun.rmi.transport.DGCAckHandler", "dgcAckTimeout",
                "sun.rmi.dgc.ackTimeout", 300_000);
    }

    /**
     * {@code DGCAckHandler.dgcAckTimeout} ({@code sun.rmi.dgc.ackTimeout}, default 5 minutes): how long JRMP keeps the
     * remote objects of a result reachable while it waits for the client's DGC acknowledgment.
     */
    public static long dgcAckTimeout() {
        return AckTimeout.VALUE;
    }

    /** {@code UnicastServerRef.suppressStackTraces} ({@code sun.rmi.server.suppressStackTraces}). */
    private static final class Suppress {
        static final boolean VALUE = Settings.booleanField("sun.rmi.server.UnicastServerRef", "suppressStackTraces",
                "sun.rmi.server.suppressStackTraces");
    }

    /** Whether JRMP clears the stack traces of exceptions before a server sends them. */
    public static boolean suppressStackTraces() {
        return Suppress.VALUE;
    }

    private static final class ReadTimeout {
        static final int VALUE = Settings.intField("sun.rmi.transport.tcp.TCPTransport", "connectionReadTimeout",
                "sun.rmi.transport.tcp.readTimeout", 2 * 3600 * 1000);
    }

    /**
     * {@code TCPTransport.connectionReadTimeout} ({@code sun.rmi.transport.tcp.readTimeout}, default 2 hours): the
     * read timeout JRMP sets on every accepted connection before it reads a byte; 0 or less: none.
     */
    public static int readTimeout() {
        return ReadTimeout.VALUE;
    }

    private static final class HandshakeTimeout {
        static final int VALUE = Settings.intField("sun.rmi.transport.tcp.TCPChannel", "handshakeTimeout",
                "sun.rmi.transport.tcp.handshakeTimeout", 60_000);
    }

    /**
     * {@code TCPChannel.handshakeTimeout} ({@code sun.rmi.transport.tcp.handshakeTimeout}, default 1 minute): how long
     * a JRMP client waits for the server's part of the connection handshake; 0: forever.
     */
    public static int handshakeTimeout() {
        return HandshakeTimeout.VALUE;
    }

    private static final class ResponseTimeout {
        static final int VALUE = Settings.intField("sun.rmi.transport.tcp.TCPChannel", "responseTimeout",
                "sun.rmi.transport.tcp.responseTimeout", 0);
    }

    /**
     * {@code TCPChannel.responseTimeout} ({@code sun.rmi.transport.tcp.responseTimeout}, default 0: forever): how long
     * a JRMP client waits for a call's reply, read when JRMP's client first ran, not at the agent's premain.
     */
    public static int responseTimeout() {
        return ResponseTimeout.VALUE;
    }

    private static final class ConnectionTimeout {
        static final long VALUE = Settings.longField("sun.rmi.transport.tcp.TCPChannel", "idleTimeout",
                "sun.rmi.transport.connectionTimeout", 15_000);
    }

    /**
     * {@code TCPChannel.idleTimeout} ({@code sun.rmi.transport.connectionTimeout}, default 15 s): how long a JRMP
     * client keeps an idle connection, so how long a server's connection thread keeps serving one client thread.
     */
    public static long connectionTimeout() {
        return ConnectionTimeout.VALUE;
    }

    /**
     * The two frames JRMP puts at the top of the client's part of a server exception's stack trace:
     * {@code StreamRemoteCall.exceptionReceivedFromServer}, where the client's trace is taken, and
     * {@code StreamRemoteCall.executeCall}, its caller. Taken once from the JDK itself: a {@code StreamRemoteCall}
     * reads a JRMP exceptional return from memory (a {@code TCPConnection} with no socket), so each element (line,
     * module, version) is what this JDK's own JRMP shows. Should that fail, elements without line numbers.
     */
    public static StackTraceElement[] exceptionReceivedFrames() {
        return ReceivedFrames.FRAMES.clone();
    }

    /**
     * The line of {@code call.executeCall()} in this JDK's {@code UnicastRef.invoke(Remote, Method, Object[], long)}:
     * where that frame stands in JRMP's trace of a server exception (Remora's hook runs at the method's start, so
     * the live frame shows another line). Read once from the JDK's class file (not the instrumented class); -1 when
     * not found.
     */
    public static int executeCallLine() {
        return ExecuteCallLine.VALUE;
    }

    private static final class ExecuteCallLine {
        static final String INVOKE =
                "(Ljava/rmi/Remote;Ljava/lang/reflect/Method;[Ljava/lang/Object;J)Ljava/lang/Object;";
        static final int VALUE = read();

        private static int read() {
            try (InputStream in = Remote.class.getModule().getResourceAsStream("sun/rmi/server/UnicastRef.class")) {
                if (in == null) {
                    return -1;
                }
                int[] line = {-1};
                new ClassReader(in.readAllBytes()).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String desc, String signature,
                            String[] exceptions) {
                        if (!name.equals("invoke") || !desc.equals(INVOKE)) {
                            return null;
                        }
                        return new MethodVisitor(Opcodes.ASM9) {
                            private int current = -1;

                            @Override
                            public void visitLineNumber(int l, Label start) {
                                current = l;
                            }

                            @Override
                            public void visitMethodInsn(int op, String owner, String m, String d, boolean itf) {
                                if (m.equals("executeCall") && line[0] < 0) {
                                    line[0] = current;
                                }
                            }
                        };
                    }
                }, ClassReader.SKIP_FRAMES);
                return line[0];
            } catch (Throwable t) {
                return -1;
            }
        }
    }

    private static final class ReceivedFrames {
        static final StackTraceElement[] FRAMES = capture();

        private static StackTraceElement[] capture() {
            try {
                ClassLoader rmi = Remote.class.getClassLoader();
                Class<?> connection = Class.forName("sun.rmi.transport.Connection", false, rmi);
                Class<?> tcpConnection = Class.forName("sun.rmi.transport.tcp.TCPConnection", false, rmi);
                Class<?> channel = Class.forName("sun.rmi.transport.tcp.TCPChannel", false, rmi);
                Class<?> call = Class.forName("sun.rmi.transport.StreamRemoteCall", false, rmi);
                java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                bytes.write(0x51); // TransportConstants.Return
                RemoraOutputStream out = new RemoraOutputStream(bytes); // a MarshalOutputStream's format
                out.writeByte(2); // TransportConstants.ExceptionalReturn
                new java.rmi.server.UID((short) 0).write(out); // the DGC ack id (a well-known one: no random source)
                Exception sent = new Exception("Remora: JRMP's client frames");
                sent.setStackTrace(new StackTraceElement[0]);
                out.writeObject(sent);
                out.flush();
                // JRMP's own connection class over the bytes: no channel, no socket
                Object conn = MethodHandles.privateLookupIn(tcpConnection, MethodHandles.lookup())
                        .findConstructor(tcpConnection, MethodType.methodType(void.class, channel, InputStream.class,
                                java.io.OutputStream.class))
                        .invoke(null, new java.io.ByteArrayInputStream(bytes.toByteArray()),
                                java.io.OutputStream.nullOutputStream());
                Object c = MethodHandles.privateLookupIn(call, MethodHandles.lookup())
                        .findConstructor(call, MethodType.methodType(void.class, connection)).invoke(conn);
                try {
                    call.getMethod("executeCall").invoke(c);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    StackTraceElement[] t = e.getTargetException().getStackTrace();
                    if (t.length >= 2 && t[0].getMethodName().equals("exceptionReceivedFromServer")
                            && t[1].getMethodName().equals("executeCall")) {
                        return new StackTraceElement[] {t[0], t[1]};
                    }
                }
            } catch (Throwable t) {
                // below
            }
            return new StackTraceElement[] {
                new StackTraceElement("sun.rmi.transport.StreamRemoteCall", "exceptionReceivedFromServer",
                        "StreamRemoteCall.java", -1),
                new StackTraceElement("sun.rmi.transport.StreamRemoteCall", "executeCall", "StreamRemoteCall.java",
                        -1),
            };
        }
    }

    /** Whether {@link #setConnectionHandler} was ever called (then {@link Handlers} is safe to touch). */
    private static volatile boolean handlersSet;

    /**
     * Whether this thread serves a call over a Remora connection (or, once Remora has served one, a JRMP call). Reads
     * nothing of JRMP's before Remora first served a call, so a JVM that only calls does not initialize its server.
     */
    public static boolean servingCall() {
        return handlersSet && Handlers.CONNECTION_HANDLER.get() != null;
    }

    /** Makes {@code RemoteServer.getClientHost()} answer from {@code handler} on this thread; returns the old one. */
    public static Object setConnectionHandler(Object handler) {
        if (!handlersSet) {
            handlersSet = true;
        }
        ThreadLocal<Object> handlers = Handlers.CONNECTION_HANDLER;
        Object old = handlers.get();
        if (handler == null) {
            handlers.remove();
        } else {
            handlers.set(handler);
        }
        return old;
    }
}
