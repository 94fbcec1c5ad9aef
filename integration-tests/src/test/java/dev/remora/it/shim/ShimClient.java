package dev.remora.it.shim;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.RemoteObject;
import java.rmi.server.RemoteObjectInvocationHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code ShimClient <registryPort> <objectPort> <scenario>}: prints one line per observable result so runs with and
 * without the agent compare line by line. Scenarios: semantics, timeout, kill.
 */
public final class ShimClient {

    public static void main(String[] args) throws Exception {
        int registryPort = Integer.parseInt(args[0]);
        int objectPort = Integer.parseInt(args[1]);
        String scenario = args[2];
        Shim shim = lookup(registryPort);
        switch (scenario) {
            case "semantics":
                semantics(shim, objectPort);
                break;
            case "timeout":
                out("sleep " + describe(() -> shim.sleep(3000)));
                out("after-timeout add " + shim.add(2, 3));
                break;
            case "kill":
                kill(shim, registryPort);
                break;
            default:
                throw new IllegalArgumentException(scenario);
        }
        System.exit(0);
    }

    private static Shim lookup(int port) throws Exception {
        return (Shim) LocateRegistry.getRegistry("127.0.0.1", port).lookup("shim");
    }

    private static void semantics(Shim shim, int objectPort) throws Exception {
        out("add " + shim.add(40, 2));
        out("remote-failure " + describe(() -> {
            shim.remoteFailure();
            return null;
        }));
        Shim.Missing missing = (Shim.Missing) Proxy.newProxyInstance(Shim.class.getClassLoader(),
                new Class<?>[] {Shim.Missing.class},
                new RemoteObjectInvocationHandler(((RemoteObject) Proxy.getInvocationHandler(shim)).getRef()));
        out("unknown-hash " + describe(() -> missing.notThere(1)));
        Shim.Counter c = shim.newCounter();
        out("counter " + c.increment() + " " + c.increment());
        out("unexport " + shim.unexportLast());
        out("after-unexport " + describe(c::increment));

        // Remora's hello, then a frame with an impossible length: that connection closes, no other suffers.
        try (Socket s = new Socket("127.0.0.1", objectPort)) {
            DataOutputStream d = new DataOutputStream(s.getOutputStream());
            d.writeInt(0x524d5241);
            d.writeShort(8); // Frame.VERSION (this JVM has no Remora classes): another version would stay on JRMP
            d.writeByte(1);
            d.writeByte(0);
            d.writeInt(-5);
            d.writeInt(0x01000000);
            d.writeInt(7);
            d.flush();
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            int n = 0;
            while (in.read() >= 0) {
                n++;
            }
            out("malformed closed (" + (n <= 8 ? "at most a hello back" : n + " bytes back") + ")");
        } catch (java.io.IOException e) {
            out("malformed closed (at most a hello back)"); // a JRMP server may close before the frame is written
        }
        out("after-malformed add " + shim.add(1, 2));

        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Long>> fs = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            final int base = t * 10_000;
            fs.add(pool.submit(() -> {
                long s = 0;
                for (int i = 0; i < 100; i++) {
                    s += shim.add(base, i);
                    if (i % 25 == 0) {
                        s += shim.sleep(1);
                    }
                }
                return s;
            }));
        }
        long sum = 0;
        for (Future<Long> f : fs) {
            sum += f.get();
        }
        pool.shutdown();
        out("threads " + sum);
    }

    /** Waits in a call while the test kills the server, then reconnects to the restarted one. */
    private static void kill(Shim shim, int registryPort) throws Exception {
        out("add " + shim.add(1, 1));
        out("CALLING");
        long t0 = System.nanoTime();
        String r = describe(() -> shim.sleep(60_000));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        out("killed " + r + (ms < 10_000 ? " promptly" : " after " + ms + " ms"));
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                Shim again = lookup(registryPort);
                out("reconnected add " + again.add(2, 2));
                return;
            } catch (Exception e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    interface Call {
        Object call() throws Exception;
    }

    /** "returned X" or the exception's class and its cause's class (messages vary with host and port). */
    static String describe(Call c) {
        try {
            return "returned " + c.call();
        } catch (Exception e) {
            Throwable cause = e.getCause();
            String s = e.getClass().getName();
            if (cause != null) {
                s += " caused by " + cause.getClass().getName();
                if (cause instanceof java.rmi.UnmarshalException || cause instanceof java.rmi.RemoteException) {
                    s += ": " + cause.getMessage();
                }
            }
            if (e instanceof java.rmi.NoSuchObjectException) {
                s += ": " + e.getMessage();
            }
            return s;
        }
    }

    private static void out(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
