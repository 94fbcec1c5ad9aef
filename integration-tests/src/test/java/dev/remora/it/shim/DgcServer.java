package dev.remora.it.shim;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.rmi.server.Unreferenced;

/**
 * {@code DgcServer <registryPort> <objectPort>}: exports a {@link Dgc} on a fixed port, binds it as "dgc", prints
 * READY and serves until killed. Holds the callbacks it is given and hands out {@link Dgc.Token}s that record their
 * {@code unreferenced()}.
 */
public final class DgcServer implements Dgc {
    private Callback held;
    private TokenImpl token;

    public static void main(String[] args) throws Exception {
        int registryPort = Integer.parseInt(args[0]);
        int objectPort = Integer.parseInt(args[1]);
        DgcServer impl = new DgcServer();
        Dgc stub = (Dgc) UnicastRemoteObject.exportObject(impl, objectPort);
        LocateRegistry.createRegistry(registryPort).rebind("dgc", stub);
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }

    @Override
    public synchronized void hold(Callback cb) {
        held = cb;
    }

    @Override
    public synchronized String callHeld(String s) throws RemoteException {
        return held.ping(s);
    }

    @Override
    public void drop() {
        synchronized (this) {
            held = null;
        }
        for (int i = 0; i < 3; i++) {
            System.gc(); // the DGC client sends its clean call when the stub's LiveRef is collected
        }
    }

    @Override
    public synchronized Token newToken() throws RemoteException {
        token = new TokenImpl();
        return (Token) UnicastRemoteObject.exportObject(token, 0);
    }

    @Override
    public synchronized boolean tokenUnreferenced() {
        return token.unreferenced;
    }

    static final class TokenImpl implements Token, Unreferenced {
        volatile boolean unreferenced;

        @Override
        public int value() {
            return 42;
        }

        @Override
        public void unreferenced() {
            unreferenced = true;
        }
    }
}
