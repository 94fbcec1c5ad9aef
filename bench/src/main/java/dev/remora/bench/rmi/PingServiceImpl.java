package dev.remora.bench.rmi;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.rmi.RemoteException;

/**
 * The server side of the collection. Every kernel returns at once; the void kernels only store what arrived in
 * volatile fields (a few nanoseconds against tens of microseconds per call) so {@code --verify} can ask for their
 * digest afterwards. {@link #openRawEcho} starts the raw TCP echo used as the latency floor.
 */
public final class PingServiceImpl implements PingService {

    private final InetAddress bindAddress;
    private final Runnable onShutdown;

    private volatile int lastKind;
    private volatile int lastA;
    private volatile int lastB;
    private volatile float lastC;
    private volatile float lastD;
    private volatile Object lastObject;

    /**
     * @param bindAddress where raw-echo sockets listen (loopback in every test and script)
     * @param onShutdown  run when a client calls {@link #shutdown()}, on a separate thread
     */
    public PingServiceImpl(InetAddress bindAddress, Runnable onShutdown) {
        this.bindAddress = bindAddress;
        this.onShutdown = onShutdown;
    }

    @Override
    public void ping() {
        lastKind = 1;
    }

    @Override
    public void ping(int a, int b) {
        lastA = a;
        lastB = b;
        lastKind = 2;
    }

    @Override
    public void ping(int a, int b, float c, float d) {
        lastA = a;
        lastB = b;
        lastC = c;
        lastD = d;
        lastKind = 3;
    }

    @Override
    public void ping(Object o) {
        lastObject = o;
        lastKind = 4;
    }

    private final java.util.concurrent.atomic.AtomicLong oneways = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void onewayPing() {
        oneways.incrementAndGet(); // one-way calls from many threads at once (oneway_star): counted exactly
    }

    @Override
    public long onewayCount() {
        return oneways.get();
    }

    @Override
    public Echoed futureEcho(Object o) {
        return new Echoed.Value(o);
    }

    @Override
    public Echoed syncEcho(Object o) {
        return new Echoed.Value(o);
    }

    @Override
    public Echoed wait1ms(int i) {
        return wait1msSync(i);
    }

    @Override
    public Echoed wait1msSync(int i) {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Echoed.Value(i);
    }

    @Override
    public Object echo(Object o) {
        return o;
    }

    @Override
    public Object pingpong(Object o, Callback back) throws RemoteException {
        return back.pong(o);
    }

    @Override
    public Object star(Object o) {
        return o;
    }

    @Override
    public void fail(Object o) throws BenchException {
        throw new BenchException(Digest.hex(Digest.of(o)));
    }

    @Override
    public long lastReceivedDigest() {
        switch (lastKind) {
            case 1:
                return argsDigest();
            case 2:
                return argsDigest(lastA, lastB);
            case 3:
                return argsDigest(lastA, lastB, lastC, lastD);
            case 4:
                return argsDigest(lastObject);
            default:
                return 0;
        }
    }

    /** Digest a void kernel's arguments: {@code ping()}. Shared by server and client so both sides agree. */
    public static long argsDigest() {
        return Digest.mix(Digest.EMPTY, 101);
    }

    /** Digest of {@code ping(int,int)}'s arguments. */
    public static long argsDigest(int a, int b) {
        return Digest.mix(Digest.mix(Digest.mix(Digest.EMPTY, 102), a), b);
    }

    /** Digest of {@code ping(int,int,float,float)}'s arguments. */
    public static long argsDigest(int a, int b, float c, float d) {
        long h = Digest.mix(Digest.mix(Digest.mix(Digest.EMPTY, 103), a), b);
        return Digest.mix(Digest.mix(h, Float.floatToRawIntBits(c)), Float.floatToRawIntBits(d));
    }

    /** Digest of {@code ping(obj)}'s argument. */
    public static long argsDigest(Object o) {
        return Digest.of(Digest.mix(Digest.EMPTY, 104), o);
    }

    @Override
    public int openRawEcho(int messageSize) throws RemoteException {
        if (messageSize < 1 || messageSize > 1 << 20) {
            throw new IllegalArgumentException("raw echo message size must be 1..1048576, got " + messageSize);
        }
        final ServerSocket listener;
        try {
            listener = new ServerSocket(0, 1, bindAddress);
            listener.setSoTimeout(30_000);
        } catch (IOException e) {
            throw new RemoteException("cannot open raw echo socket on " + bindAddress, e);
        }
        Thread t = new Thread(() -> serveRawEcho(listener, messageSize), "raw-echo-" + listener.getLocalPort());
        t.setDaemon(true);
        t.start();
        return listener.getLocalPort();
    }

    private static void serveRawEcho(ServerSocket listener, int size) {
        byte[] buf = new byte[size];
        try (ServerSocket l = listener; Socket s = l.accept()) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (readFully(in, buf)) {
                out.write(buf);
            }
        } catch (IOException e) {
            // The client went away or never came (accept timed out): nothing to serve.
        }
    }

    /** Reads exactly {@code buf.length} bytes; false on a clean end of stream before the first byte. */
    static boolean readFully(InputStream in, byte[] buf) throws IOException {
        int off = 0;
        while (off < buf.length) {
            int r = in.read(buf, off, buf.length - off);
            if (r < 0) {
                if (off == 0) {
                    return false;
                }
                throw new IOException("stream ended after " + off + " of " + buf.length + " bytes");
            }
            off += r;
        }
        return true;
    }

    @Override
    public long compilationMillis() {
        return jitMillis();
    }

    /** This JVM's total JIT compilation time in ms, or -1 when the JVM does not report it. */
    public static long jitMillis() {
        java.lang.management.CompilationMXBean c = java.lang.management.ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }

    @Override
    public long cpuNanos() {
        return processCpuNanos();
    }

    @Override
    public long lifetimeCpuNanos() {
        return lifetimeCpu();
    }

    /**
     * This JVM's CPU time since it started (user + system of every thread, ended ones included) in ns, from
     * /proc/self/stat in clock ticks (10 ms on Linux), or -1 elsewhere. Read without java.lang.management, which
     * would itself add start-up work to the figure it reports.
     */
    public static long lifetimeCpu() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // fields after the command name in parentheses (which may hold spaces): state is field 3, utime 14
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 10_000_000L; // USER_HZ is 100 on every Linux the JDK runs on
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * This JVM's CPU time (all threads, user + system) in ns, or -1 when not available. On Linux the sum of
     * /proc/self/task/N/schedstat (ns resolution, every native thread: GC and JIT included; a thread that ended
     * between two reads drops out, which the steady state of a benchmark does not see); elsewhere the JVM's process
     * CPU time, which Linux reports in 10 ms ticks only (2 us per call over 5000 calls).
     */
    public static long processCpuNanos() {
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            long sum = 0;
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
                for (Path t : ds) {
                    String line;
                    try {
                        line = Files.readString(t.resolve("schedstat"));
                    } catch (IOException ended) {
                        continue; // the thread ended meanwhile
                    }
                    int sp = line.indexOf(' ');
                    sum += Long.parseLong(sp < 0 ? line.trim() : line.substring(0, sp));
                }
                return sum;
            } catch (IOException | RuntimeException e) {
                // fall through to the JVM's figure
            }
        }
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    @Override
    public void shutdown() {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(100); // let this call's reply leave before the object is unexported
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            onShutdown.run();
        }, "bench-shutdown");
        t.setDaemon(false);
        t.start();
    }
}
