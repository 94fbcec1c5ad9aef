package dev.remora.it.app;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RemoteServer;
import java.rmi.server.ServerNotActiveException;
import java.rmi.server.UnicastRemoteObject;

/**
 * {@code CalcServer <registryPort>}: creates a registry, binds "calc", prints {@code READY} and serves until killed
 * (SIGTERM lets shutdown hooks, such as Remora's stats, run).
 */
public final class CalcServer implements Calc {

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        CalcServer impl = new CalcServer();
        Calc stub = (Calc) UnicastRemoteObject.exportObject(impl, 0);
        Registry registry = LocateRegistry.createRegistry(port);
        registry.rebind("calc", stub);
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }

    @Override
    public int add(int a, int b) {
        return a + b;
    }

    @Override
    public Object echo(Object o) {
        return o;
    }

    @Override
    public void ping() {
    }

    @Override
    public void fail(String kind) throws AppException {
        switch (kind) {
            case "declared":
                throw new AppException("declared failure");
            case "runtime":
                throw new IllegalStateException("runtime failure");
            case "error":
                throw new AssertionError("error failure");
            default:
                throw new IllegalArgumentException(kind);
        }
    }

    @Override
    public String clientHost() {
        try {
            return RemoteServer.getClientHost();
        } catch (ServerNotActiveException e) {
            return "not active: " + e.getMessage();
        }
    }

    @Override
    public int callback(Callback cb, int n) throws RemoteException {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += cb.tick(i);
        }
        return sum;
    }

    /**
     * Counters handed out. JRMP holds a non-permanent export only weakly until the client's first DGC dirty call, so an
     * object exported and returned with no other reference can be collected in between (NoSuchObjectException on
     * its first call: plain JDK behaviour, seen here once when a GC hit that window). Real servers keep such objects
     * reachable, and so does this one.
     */
    private final java.util.List<Counter> counters = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    @Override
    public Counter newCounter() throws RemoteException {
        Counter c = new Counter() {
            private int n;

            @Override
            public synchronized int increment() {
                return ++n;
            }
        };
        counters.add(c);
        return (Counter) UnicastRemoteObject.exportObject(c, 0);
    }
}
