package dev.remora.bench.jmh.shim;

import dev.remora.bench.rmi.Int32;
import dev.remora.bench.rmi.PingService;
import dev.remora.bench.rmi.PingServiceImpl;
import dev.remora.rmi.RemoraRouter;
import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.jdk.RmiInternals;
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
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Remora's call path (rmi-shim) in one JVM: a client router and a server router joined by a loopback socket, the
 * exported object a real JRMP export, as the agent wires them. Run with JMH's gc profiler to see what one call
 * allocates on both sides together (the profiler counts every thread):
 *
 * <pre>java -jar bench/target/benchmarks.jar ShimCallBench -prof gc</pre>
 *
 * {@code gc.alloc.rate.norm} is bytes per call, client and server; the argument array is reused, as if the stub's
 * were free, so what remains is the protocol's own cost plus the argument and result objects themselves. Latency here
 * is not the compare script's (one JVM, the JMH thread and the server's reader on whatever vCPUs the OS picks).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens", "java.rmi/sun.rmi.server=ALL-UNNAMED",
        "--add-opens", "java.rmi/sun.rmi.transport=ALL-UNNAMED",
        "--add-opens", "java.rmi/sun.rmi.transport.tcp=ALL-UNNAMED"})
public class ShimCallBench {
    @Param({"fast", "jdk"})
    public String serializer;

    @Param({"auto", "pool"})
    public String dispatch;

    private RemoraRouter client;
    private RemoraRouter server;
    private ServerSocket listener;
    private PingServiceImpl impl;
    private Object ref;
    private Method ping;
    private long pingHash;
    private Method echo;
    private long echoHash;
    private final Object[] int32Args = {Int32.sample()};

    @Setup
    public void setUp() throws Throwable {
        RouterOptions.Serializer s = "jdk".equals(serializer) ? RouterOptions.Serializer.JDK
                : RouterOptions.Serializer.FAST;
        client = new RemoraRouter(RouterOptions.defaults().serializer(s).transport(RouterOptions.Transport.SOCKET));
        server = new RemoraRouter(RouterOptions.defaults().serializer(s).transport(RouterOptions.Transport.SOCKET)
                .dispatch("pool".equals(dispatch) ? RouterOptions.Dispatch.POOL : RouterOptions.Dispatch.AUTO));
        server.start();
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket socket = listener.accept();
                    Thread t = new Thread(() -> {
                        try {
                            server.accept(null, socket);
                        } catch (IOException ignored) {
                            // closed at tear-down
                        }
                    }, "bench-connection");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "bench-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        impl = new PingServiceImpl(InetAddress.getLoopbackAddress(), () -> { });
        Remote stub = UnicastRemoteObject.exportObject(impl, 0);
        Object o = java.lang.reflect.Proxy.isProxyClass(stub.getClass())
                ? java.lang.reflect.Proxy.getInvocationHandler(stub) : stub;
        Object serverRef = ((RemoteObject) o).getRef();
        server.exported(serverRef, impl, stub);
        ref = refTo(RmiInternals.objId(RmiInternals.liveRef(serverRef)), listener);
        ping = PingService.class.getMethod("ping");
        pingHash = RmiInternals.methodHash(ping);
        echo = PingService.class.getMethod("echo", Object.class);
        echoHash = RmiInternals.methodHash(echo);
        if (nullPing() == null || echo32() == null) {
            throw new IllegalStateException("the call went to JRMP: the loopback Remora connection failed");
        }
    }

    /** A UnicastRef for {@code id} whose endpoint is the bench's listener (where the server router answers). */
    private static Object refTo(ObjID id, ServerSocket at) throws Exception {
        ClassLoader rmi = Remote.class.getClassLoader();
        Class<?> ep = Class.forName("sun.rmi.transport.Endpoint", false, rmi);
        Constructor<?> tcp = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, rmi)
                .getConstructor(String.class, int.class);
        Object endpoint = tcp.newInstance(at.getInetAddress().getHostAddress(), at.getLocalPort());
        Class<?> liveRefClass = Class.forName("sun.rmi.transport.LiveRef", false, rmi);
        Object liveRef = liveRefClass.getConstructor(ObjID.class, ep, boolean.class).newInstance(id, endpoint, false);
        return Class.forName("sun.rmi.server.UnicastRef", false, rmi).getConstructor(liveRefClass)
                .newInstance(liveRef);
    }

    @TearDown
    public void tearDown() throws IOException {
        listener.close();
        UnicastRemoteObject.unexportObject(impl, true);
    }

    /** void ping(): {result, exception} from the client router. */
    @Benchmark
    public Object[] nullPing() throws Throwable {
        return client.invoke(ref, null, ping, null, pingHash);
    }

    /** Object echo(Object) with a 32-int object (the same instance each call; a new copy comes back). */
    @Benchmark
    public Object[] echo32() throws Throwable {
        return client.invoke(ref, null, echo, int32Args, echoHash);
    }
}
