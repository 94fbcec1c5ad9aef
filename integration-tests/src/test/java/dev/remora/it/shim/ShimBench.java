package dev.remora.it.shim;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.Serializable;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;

/**
 * Not a test: {@code ShimBench server <port>} / {@code ShimBench client <port> <calls>} prints median round trips of
 * void ping(), obj ping(32 int), obj ping(tree(15)) over RMI and of a raw 64-byte TCP ping-pong, in one run, so
 * vanilla and agent runs compare under the same CPU placement (the caller pins with taskset).
 */
public final class ShimBench {
    public interface Ping extends Remote {
        void ping() throws RemoteException;

        Object ping(Object o) throws RemoteException;
    }

    static final class Int32 implements Serializable {
        private static final long serialVersionUID = 1L;
        int a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15;
        int b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15;
    }

    static final class Tree implements Serializable {
        private static final long serialVersionUID = 1L;
        int value;
        Tree left;
        Tree right;

        static Tree of(int n) {
            if (n == 0) {
                return null;
            }
            Tree t = new Tree();
            int rest = n - 1;
            t.left = of(rest / 2);
            t.right = of(rest - rest / 2);
            t.value = n;
            return t;
        }
    }

    static final class Impl implements Ping {
        @Override
        public void ping() {
        }

        @Override
        public Object ping(Object o) {
            return o;
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        if (args[0].equals("server")) {
            Impl impl = new Impl();
            Ping stub = (Ping) UnicastRemoteObject.exportObject(impl, 0);
            LocateRegistry.createRegistry(port).rebind("ping", stub);
            ServerSocket raw = new ServerSocket(port + 1);
            Thread echo = new Thread(() -> {
                try (Socket s = raw.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    byte[] b = new byte[64];
                    while (true) {
                        in.readFully(b);
                        out.write(b);
                        out.flush();
                    }
                } catch (Exception e) {
                    // client gone
                }
            });
            echo.setDaemon(true);
            echo.start();
            System.out.println("READY");
            System.out.flush();
            Thread.currentThread().join();
        }
        int calls = Integer.parseInt(args[2]);
        Ping p = (Ping) LocateRegistry.getRegistry("127.0.0.1", port).lookup("ping");
        Int32 i32 = new Int32();
        Tree tree = Tree.of(15);
        long[] t = new long[calls];
        try (Socket s = new Socket("127.0.0.1", port + 1)) {
            s.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            byte[] b = new byte[64];
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < calls; i++) {
                    long t0 = System.nanoTime();
                    out.write(b);
                    out.flush();
                    in.readFully(b);
                    t[i] = System.nanoTime() - t0;
                }
            }
            report("raw tcp 64B", t);
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                p.ping();
                t[i] = System.nanoTime() - t0;
            }
        }
        report("void ping()", t);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                p.ping(i32);
                t[i] = System.nanoTime() - t0;
            }
        }
        report("obj ping(32 int)", t);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                p.ping(tree);
                t[i] = System.nanoTime() - t0;
            }
        }
        report("obj ping(tree(15))", t);
        System.exit(0);
    }

    private static void report(String what, long[] t) {
        long[] c = t.clone();
        Arrays.sort(c);
        System.out.printf("%-20s median %7.1f us  p90 %7.1f us%n", what, c[c.length / 2] / 1000.0,
                c[c.length * 9 / 10] / 1000.0);
    }
}
