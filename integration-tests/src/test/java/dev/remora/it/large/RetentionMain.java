package dev.remora.it.large;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;

/**
 * Threads that each made one large call and then only small ones, or none, as a server's worker threads do: what
 * the JVMs keep of those calls once they are over.
 * <ul>
 *   <li>{@code server PORT}: exports a {@link Svc}; prints READY; on a line of input collects and prints
 *       {@code HEAP n} (MB used), then exits;</li>
 *   <li>{@code client PORT THREADS MB}: each thread fetches an MB-megabyte array, sends one, makes 20 small calls and
 *       stays alive doing nothing; then the JVM collects and prints {@code HEAP n}.</li>
 * </ul>
 */
public final class RetentionMain {
    private RetentionMain() {
    }

    public interface Svc extends Remote {
        byte[] get(int n) throws RemoteException;

        int echo(byte[] b) throws RemoteException;
    }

    private static final class Impl implements Svc {
        @Override
        public byte[] get(int n) {
            return new byte[n];
        }

        @Override
        public int echo(byte[] b) {
            return b.length;
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        if (args[0].equals("server")) {
            Registry registry = LocateRegistry.createRegistry(port);
            Impl impl = new Impl();
            registry.rebind("svc", UnicastRemoteObject.exportObject(impl, 0));
            System.out.println("READY");
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            System.out.println("HEAP " + heapAfterGc());
            System.exit(0);
        }
        int threads = Integer.parseInt(args[2]);
        int bytes = Integer.parseInt(args[3]) << 20;
        Svc svc = (Svc) LocateRegistry.getRegistry(port).lookup("svc");
        CountDownLatch done = new CountDownLatch(threads);
        Object never = new Object();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    if (svc.get(bytes).length != bytes || svc.echo(new byte[bytes]) != bytes) {
                        throw new IllegalStateException("wrong length");
                    }
                    for (int k = 0; k < 20; k++) {
                        svc.echo(new byte[10]);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
                done.countDown();
                synchronized (never) { // lives on, as a pool's worker thread does
                    try {
                        never.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }, "caller" + i);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        System.out.println("HEAP " + heapAfterGc());
        System.exit(0);
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    }
}
