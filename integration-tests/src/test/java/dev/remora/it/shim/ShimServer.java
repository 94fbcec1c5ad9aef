package dev.remora.it.shim;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;

/**
 * {@code ShimServer <registryPort> <objectPort>}: exports a {@link Shim} on a fixed port (so a restarted server is the
 * same endpoint), binds it as "shim", prints READY and serves until killed.
 */
public final class ShimServer implements Shim {
    private Counter last;

    public static void main(String[] args) throws Exception {
        int registryPort = Integer.parseInt(args[0]);
        int objectPort = Integer.parseInt(args[1]);
        ShimServer impl = new ShimServer();
        Shim stub = (Shim) UnicastRemoteObject.exportObject(impl, objectPort);
        LocateRegistry.createRegistry(registryPort).rebind("shim", stub);
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }

    @Override
    public int add(int a, int b) {
        return a + b;
    }

    @Override
    public int sleep(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ms;
    }

    @Override
    public synchronized Counter newCounter() throws RemoteException {
        Counter c = new Counter() {
            private int n;

            @Override
            public synchronized int increment() {
                return ++n;
            }
        };
        last = c;
        return (Counter) UnicastRemoteObject.exportObject(c, 0);
    }

    @Override
    public synchronized boolean unexportLast() throws RemoteException {
        return UnicastRemoteObject.unexportObject(last, true);
    }

    @Override
    public void remoteFailure() throws RemoteException {
        throw new RemoteException("the application's own");
    }
}
