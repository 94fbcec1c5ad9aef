package dev.remora.it.loaders;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Deployments that share a remote interface from a common loader (an application server's shared library) but each
 * have their own copy of the classes of its values: the stub's loader cannot resolve a result, the calling thread's
 * context class loader (its deployment's) can. JRMP's caller reads its own reply with its own context loader; with
 * Remora a connection's replies may be read by whichever waiting caller leads, which must use the caller's loader.
 * <ul>
 *   <li>{@code server PORT DIR}: exports a {@link Maker} whose results are {@code remora.it.plugin.Value}s of a plugin
 *       loader of its own ({@code src/test/plugins}); prints READY, stops at end of input;</li>
 *   <li>{@code client PORT DIR THREADS CALLS}: THREADS threads, each with a deployment loader of its own over the
 *       same classes as context class loader, call {@code make} CALLS times at once through one stub; each result's
 *       class must be its caller's deployment's. Prints {@code WRONG n} (results of another loader, or failures).</li>
 * </ul>
 */
public final class SharedStub {
    private SharedStub() {
    }

    /** The shared remote interface: in the application's loader, which no plugin class is visible to. */
    public interface Maker extends Remote {
        Object make(int n) throws RemoteException;
    }

    private static final class MakerImpl implements Maker {
        private final Constructor<?> value;

        MakerImpl(Constructor<?> value) {
            this.value = value;
        }

        @Override
        public Object make(int n) {
            try {
                return value.newInstance(n);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        URL[] dir = {Paths.get(args[2]).toUri().toURL()};
        ClassLoader app = SharedStub.class.getClassLoader();
        if (args[0].equals("server")) {
            Registry registry = LocateRegistry.createRegistry(port);
            ClassLoader plugin = new URLClassLoader("splugin", dir, app);
            Maker impl = new MakerImpl(Class.forName("remora.it.plugin.Value", true, plugin).getConstructor(int.class));
            registry.rebind("maker", UnicastRemoteObject.exportObject(impl, 0));
            System.out.println("READY");
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            UnicastRemoteObject.unexportObject(impl, true);
            UnicastRemoteObject.unexportObject(registry, true);
            System.exit(0);
        }
        int threads = Integer.parseInt(args[3]);
        int calls = Integer.parseInt(args[4]);
        Maker maker = (Maker) LocateRegistry.getRegistry(port).lookup("maker");
        AtomicInteger wrong = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ClassLoader own = new URLClassLoader("deployment" + i, dir, app);
            ts[i] = new Thread(() -> {
                try {
                    start.await();
                    for (int c = 0; c < calls; c++) {
                        Object v = maker.make(c);
                        if (v.getClass().getClassLoader() != own) {
                            if (wrong.getAndIncrement() == 0) {
                                System.out.println("FIRST " + Thread.currentThread().getName() + " got " + v);
                            }
                        }
                    }
                } catch (Exception e) {
                    wrong.incrementAndGet();
                    System.out.println("FAILED " + Thread.currentThread().getName() + ": " + e);
                }
            }, "caller" + i);
            ts[i].setContextClassLoader(own);
            ts[i].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("WRONG " + wrong.get());
        System.exit(0);
    }
}
