package dev.remora.it.large;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;

/**
 * {@code LargeMain server <port>} or {@code LargeMain client <port> <ints>}: the client fetches an int[] of that
 * length as a result, sends it back as an argument, and prints what it checked and how long each took.
 */
public final class LargeMain {
    /** Large values both ways. */
    public interface Large extends Remote {
        int[] make(int n) throws RemoteException;

        long sum(int[] a) throws RemoteException;
    }

    static final class Impl implements Large {
        @Override
        public int[] make(int n) {
            int[] a = new int[n];
            for (int i = 0; i < n; i++) {
                a[i] = i * 31 + 7;
            }
            return a;
        }

        @Override
        public long sum(int[] a) {
            long s = 0;
            for (int v : a) {
                s += v;
            }
            return s;
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        if (args[0].equals("server")) {
            Large stub = (Large) UnicastRemoteObject.exportObject(new Impl(), 0);
            LocateRegistry.createRegistry(port).rebind("large", stub);
            System.out.println("READY");
            Thread.currentThread().join();
            return;
        }
        Large l = (Large) LocateRegistry.getRegistry("127.0.0.1", port).lookup("large");
        int n = Integer.parseInt(args[2]);
        long t0 = System.nanoTime();
        int[] a = l.make(n);
        long t1 = System.nanoTime();
        boolean same = a.length == n;
        long local = 0;
        for (int i = 0; i < n && same; i++) {
            same = a[i] == i * 31 + 7;
            local += a[i];
        }
        long remote = l.sum(a);
        long t2 = System.nanoTime();
        System.out.println("result intact " + same + ", argument intact " + (remote == local));
        System.out.printf("TIMES result %.3f s, argument %.3f s%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
        System.exit(0);
    }
}
