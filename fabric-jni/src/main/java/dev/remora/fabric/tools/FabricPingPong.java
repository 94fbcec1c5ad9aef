package dev.remora.fabric.tools;

import dev.remora.fabric.Fabric;
import dev.remora.fabric.FabricEndpoint;
import dev.remora.fabric.FabricOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Java counterpart of the C floor {@code bench/src/main/c/remora_fabric_pingpong.c}: a ping-pong over
 * {@link FabricEndpoint}, same command line, same CSV (impl "java"). This process is the client; it starts the echo
 * server as a second JVM (pinned with {@code taskset -c SERVER_CPU}, or behind --server-prefix) and swaps addresses
 * with it over the child's stdin/stdout; the server gets the client's -X options (heap, GC). Pin the client from
 * outside: {@code taskset -c 1 java ... FabricPingPong}.
 *
 * <pre>
 * java -cp remora-fabric-jni.jar dev.remora.fabric.tools.FabricPingPong [-p PROVIDER] [-s SIZE,...] [-n ITERS]
 *      [-w WARMUP] [-m busy|block] [-S SPIN_US] [-B BUSY_POLLS] [-R RING_BYTES] [-C SERVER_CPU] [-H] [-a] [-f] [-N]
 *      [--server-prefix "CMD ARGS"]
 * CSV: impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,p99_us,mb_per_s
 * </pre>
 * busy = spin forever without sched_yield; block = the endpoint's spin-then-sleep with SPIN_US (default 50) and
 * -B BUSY_POLLS pure polls first (default 50).
 * Over shm the two endpoints share their send rings as Remora's links do ({@link FabricEndpoint#createSharedRing});
 * -N keeps every message on libfabric's CMA copy instead.
 * -R sets the endpoints' send ring ({@link FabricOptions#sendRingBytes()}; 0: one staging buffer).
 * -a sends from a byte[] (impl "java-array": copied into the native staging buffer) instead of a direct buffer.
 * -f (impl "java-fresh") is what Java semantics cost on top: each side copies every message it receives into a new
 * byte[] (as deserialization must, in the JVM's own heap) and sends that array on (implies -a). Compare an RMI
 * echo(byte[n]) with this row: what is left above it is Remora's own cost.
 * Every size is first checked once byte for byte. A zero-length message tells the server to exit.
 * {@code --serve} runs the server side (used internally and by the tests).
 */
public final class FabricPingPong {
    private FabricPingPong() {}

    public static void main(String[] args) throws Exception {
        String provider = "shm";
        String mode = "block";
        int[] sizes = {64, 100_000};
        int iters = 20_000;
        int warmup = 2_000;
        long spinUs = 50;
        int serverCpu = -1;
        boolean header = false;
        boolean serve = false;
        boolean array = false;
        boolean fresh = false;
        boolean shared = true;
        int busyPolls = FabricOptions.defaults().busyPolls();
        long ring = FabricOptions.defaults().sendRingBytes();
        String prefix = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-p": provider = args[++i]; break;
                case "-s": sizes = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray(); break;
                case "-n": iters = Integer.parseInt(args[++i]); break;
                case "-w": warmup = Integer.parseInt(args[++i]); break;
                case "-m": mode = args[++i]; break;
                case "-S": spinUs = Long.parseLong(args[++i]); break;
                case "-C": serverCpu = Integer.parseInt(args[++i]); break;
                case "-H": header = true; break;
                case "--serve": serve = true; break;
                case "-a": array = true; break;
                case "-f": fresh = true; array = true; break;
                case "-N": shared = false; break;
                case "-B": busyPolls = Integer.parseInt(args[++i]); break;
                case "-R": ring = Long.parseLong(args[++i]); break;
                case "--server-prefix": prefix = args[++i]; break;
                default:
                    System.err.println("usage: FabricPingPong [-p provider] [-s size,...] [-n iters] [-w warmup] "
                            + "[-m busy|block] [-S spin_us] [-B busy_polls] [-R ring_bytes] [-C server_cpu] [-H] [-a] "
                            + "[-f] [-N] [--server-prefix cmd] [--serve]");
                    System.exit(2);
            }
        }
        if (!Fabric.isAvailable()) {
            System.err.println("FabricPingPong: " + Fabric.unavailabilityCause().getMessage());
            System.exit(1);
        }
        FabricOptions base = FabricOptions.defaults().withSendRingBytes(ring);
        FabricOptions options = "busy".equals(mode)
                ? base.withYield(false).withSpinNanos(Long.MAX_VALUE / 4)
                : base.withSpinNanos(spinUs * 1000).withBusyPolls(busyPolls);
        if (serve) {
            serve(provider, options, fresh, shared);
        } else {
            client(provider, mode, options, sizes, iters, warmup, serverCpu, header, prefix, array, fresh, shared);
        }
    }

    /**
     * Echo server: prints its address, reads the client's, echoes until a zero-length message; with fresh, each
     * message is first copied into a new byte[], which is then sent.
     */
    static void serve(String provider, FabricOptions options, boolean fresh, boolean shared) throws IOException {
        PrintStream out = System.out;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (FabricEndpoint ep = FabricEndpoint.open(provider, options)) {
            out.println("ADDR " + HexFormat.of().formatHex(ep.address()) + " CPU " + cpus() + " RING "
                    + offerRing(ep, shared));
            out.flush();
            String line = in.readLine();
            if (line == null || !line.startsWith("ADDR ")) {
                throw new IOException("expected the client's ADDR line, got " + line);
            }
            String[] parts = line.split(" "); // ADDR hex RING name MAPPED 0|1
            ep.insertPeer(HexFormat.of().parseHex(parts[1]));
            boolean mapped = parts.length > 3 && shared && mapRing(ep, parts[3]);
            ep.enableSharedRing(parts.length > 5 && "1".equals(parts[5]));
            out.println("MAPPED " + (mapped ? 1 : 0));
            out.flush();
            for (;;) {
                int n = ep.receive(-1);
                if (n == 0) {
                    break;
                }
                if (fresh) {
                    ep.send(ep.receivedSource(), null, freshCopy(ep, n), 0, n);
                } else {
                    ep.send(ep.receivedSource(), ep.received());
                }
            }
        }
    }

    private static void client(String provider, String mode, FabricOptions options, int[] sizes, int iters,
            int warmup, int serverCpu, boolean header, String prefix, boolean array, boolean fresh, boolean shared)
            throws Exception {
        List<String> cmd = new ArrayList<>();
        if (prefix != null) {
            cmd.addAll(Arrays.asList(prefix.trim().split("\\s+")));
        } else if (serverCpu >= 0) {
            cmd.addAll(List.of("taskset", "-c", Integer.toString(serverCpu)));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-X")) { // heap and GC options: the server's heap should be the client's
                cmd.add(a);
            }
        }
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                FabricPingPong.class.getName(), "--serve",
                "-p", provider, "-m", mode, "-S", Long.toString(options.spinNanos() / 1000), "-B",
                Integer.toString(options.busyPolls()), "-R", Long.toString(options.sendRingBytes())));
        if (fresh) {
            cmd.add("-f");
        }
        if (!shared) {
            cmd.add("-N");
        }
        Process server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (FabricEndpoint ep = FabricEndpoint.open(provider, options)) {
            BufferedReader sin = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line = sin.readLine();
            if (line == null || !line.startsWith("ADDR ")) {
                throw new IOException("server did not start: " + line);
            }
            String[] parts = line.split(" "); // ADDR hex CPU cpus RING name
            long peer = ep.insertPeer(HexFormat.of().parseHex(parts[1]));
            String serverCpus = parts.length > 3 ? parts[3] : "?";
            boolean mapped = parts.length > 5 && shared && mapRing(ep, parts[5]);
            PrintStream toServer = new PrintStream(server.getOutputStream(), true, StandardCharsets.US_ASCII);
            toServer.println("ADDR " + HexFormat.of().formatHex(ep.address()) + " RING " + offerRing(ep, shared)
                    + " MAPPED " + (mapped ? 1 : 0));
            line = sin.readLine();
            if (line == null || !line.startsWith("MAPPED ")) {
                throw new IOException("expected the server's MAPPED line, got " + line);
            }
            ep.enableSharedRing(line.endsWith("1"));
            if (header) {
                System.out.println("impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,p99_us,mb_per_s");
            }
            long[] rtt = new long[iters];
            for (int size : sizes) {
                // 64-byte aligned as the endpoint's buffers are: shm's CMA copy from another offset is slower,
                // so the endpoint would first copy such a buffer into its staging buffer (rf_copy in remora_fabric.h)
                ByteBuffer msg = ByteBuffer.allocateDirect(size + 128).alignedSlice(64).limit(size).slice();
                for (int i = 0; i < size; i++) {
                    msg.put(i, (byte) (i * 31 + size));
                }
                byte[] bytes = new byte[size];
                msg.get(0, bytes);
                byte[] first = bytes;
                roundTrip(ep, peer, msg, array ? bytes : null);
                if (!ep.received().equals(msg.duplicate().clear())) {
                    throw new IOException("echo of " + size + " bytes differs");
                }
                for (int i = 0; i < warmup + iters; i++) {
                    long t0 = System.nanoTime();
                    roundTrip(ep, peer, msg, array ? bytes : null);
                    if (fresh) { // the echo becomes a new array, which the next round trip sends
                        bytes = freshCopy(ep, size);
                    }
                    if (i >= warmup) {
                        rtt[i - warmup] = System.nanoTime() - t0;
                    }
                }
                if (fresh && !Arrays.equals(bytes, first)) {
                    throw new IOException("after " + (warmup + iters) + " fresh echoes the " + size + " bytes differ");
                }
                Arrays.sort(rtt);
                double med = rtt[iters / 2] / 1000.0;
                double p99 = rtt[(int) ((iters - 1) * 0.99)] / 1000.0;
                System.out.printf("%s,%s,%s,%d,%d,%s,%s,%.3f,%.3f,%.1f%n",
                        fresh ? "java-fresh" : array ? "java-array" : "java", provider,
                        mode, size, iters, cpus(),
                        serverCpus, med, p99, size / (med / 2.0));
                System.out.flush();
            }
            ep.send(peer, ByteBuffer.allocateDirect(0));
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                throw new IOException("server did not exit");
            }
        } finally {
            if (server.isAlive() && server.destroyForcibly().waitFor(5, TimeUnit.SECONDS)) {
                Fabric.removeShmRegionsOf(server.pid()); // SIGKILL left its shm region behind
            }
        }
    }

    /** This endpoint's shared ring's name for the peer, or "-" (none: -N, not shm, or -R 0). */
    private static String offerRing(FabricEndpoint ep, boolean shared) throws IOException {
        String name = shared ? ep.createSharedRing() : null;
        return name == null ? "-" : name;
    }

    private static boolean mapRing(FabricEndpoint ep, String name) throws IOException {
        if ("-".equals(name)) {
            return false;
        }
        ep.attachSharedRing(name);
        return true;
    }

    /** The last received message in a new array: what deserializing an array costs a Java receiver. */
    private static byte[] freshCopy(FabricEndpoint ep, int n) {
        byte[] copy = new byte[n];
        ep.received().get(0, copy, 0, n);
        return copy;
    }

    private static void roundTrip(FabricEndpoint ep, long peer, ByteBuffer msg, byte[] array) throws IOException {
        if (array != null) {
            ep.send(peer, null, array, 0, array.length);
        } else {
            ep.send(peer, msg);
        }
        if (ep.receive(10_000_000_000L) != msg.capacity()) {
            throw new IOException("no echo of " + msg.capacity() + " bytes within 10 s");
        }
    }

    /** The CPUs this process may run on (Cpus_allowed_list), e.g. "0" or "0-1". */
    static String cpus() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("Cpus_allowed_list:")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "?";
    }
}
