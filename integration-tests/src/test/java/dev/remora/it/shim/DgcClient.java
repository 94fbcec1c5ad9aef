package dev.remora.it.shim;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.rmi.server.Unreferenced;
import java.util.function.BooleanSupplier;

/**
 * {@code DgcClient <registryPort> <leaseMillis>}: the distributed garbage collector through Remora's calls. A callback
 * passed as an argument stays referenced while the server holds it (several lease periods) and becomes unreferenced
 * once the server drops it; a remote object returned as a result likewise on the server's side. Prints one line per
 * outcome; waits are liveness bounds (60 s), not timing assertions.
 */
public final class DgcClient {

    public static void main(String[] args) throws Exception {
        int registryPort = Integer.parseInt(args[0]);
        long lease = Long.parseLong(args[1]);
        Dgc dgc = (Dgc) LocateRegistry.getRegistry("127.0.0.1", registryPort).lookup("dgc");

        // An argument: the server holds our callback.
        CallbackImpl cb = new CallbackImpl();
        Dgc.Callback cbStub = (Dgc.Callback) UnicastRemoteObject.exportObject(cb, 0);
        dgc.hold(cbStub);
        cbStub = null;
        out("callback " + dgc.callHeld("a"));
        collectFor(3 * lease);
        out("argument held after 3 leases: unreferenced=" + cb.unreferenced);
        out("callback again " + dgc.callHeld("b"));
        dgc.drop();
        out("argument dropped: unreferenced=" + await(() -> cb.unreferenced, () -> {
            dgc.drop();
        }));

        // A result: we hold the server's token.
        Dgc.Token token = dgc.newToken();
        out("token " + token.value());
        collectFor(3 * lease);
        out("result held after 3 leases: unreferenced=" + dgc.tokenUnreferenced());
        out("token again " + token.value());
        token = null;
        out("result dropped: unreferenced=" + await(() -> {
            try {
                return dgc.tokenUnreferenced();
            } catch (java.rmi.RemoteException e) {
                throw new IllegalStateException(e);
            }
        }, System::gc));
        System.exit(0);
    }

    /** Collects garbage now and then for {@code ms} (a reference that should survive gets every chance to die). */
    private static void collectFor(long ms) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            System.gc();
            Thread.sleep(250);
        }
    }

    interface Poke {
        void run() throws Exception;
    }

    /** Polls {@code done} for up to 60 s, poking (collecting garbage) every second. */
    private static boolean await(BooleanSupplier done, Poke poke) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        long nextPoke = 0;
        while (System.currentTimeMillis() < end) {
            if (done.getAsBoolean()) {
                return true;
            }
            if (System.currentTimeMillis() >= nextPoke) {
                poke.run();
                nextPoke = System.currentTimeMillis() + 1000;
            }
            Thread.sleep(50);
        }
        return done.getAsBoolean();
    }

    static final class CallbackImpl implements Dgc.Callback, Unreferenced {
        volatile boolean unreferenced;

        @Override
        public String ping(String s) {
            return "pong " + s;
        }

        @Override
        public void unreferenced() {
            unreferenced = true;
        }
    }

    private static void out(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
