package dev.remora.it.loaders;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.ObjectStreamClass;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An application server that redeploys: each generation of a plugin ({@code src/test/plugins}) in a class loader of
 * its own, used, then dropped, in two JVMs that stay connected throughout. A dropped generation's loader, and its
 * classes, must become unreachable: what an agent keeps of them grows with every redeployment, until Metaspace runs
 * out. Driven line by line from standard input:
 * <ul>
 *   <li>{@code server PORT DIR}: on {@code deploy}, exports a new generation's {@code CalcImpl} as "calc1" and
 *       "calc2" (the previous one unexported first, with force) and prints {@code DEPLOYED g};</li>
 *   <li>{@code client PORT DIR}: on {@code call}, runs a new generation's {@code PluginClient} (both names, a few
 *       calls each), drops it and prints {@code CALLED g} with the number of its lines;</li>
 *   <li>{@code both PORT DIR}: on {@code deploy}, the server's step and then the client's, in one JVM, whose calls
 *       take the co-located short-cut (one JVM's deployments calling each other);</li>
 *   <li>each, on {@code count}: drop what is left, collect (run with {@code -XX:SoftRefLRUPolicyMSPerMB=0}, so that
 *       the JDK's soft caches of class descriptors go too) and print {@code RETAINED n names} (the generations'
 *       loaders still reachable), then exit.</li>
 * </ul>
 */
public final class Redeploy {
    /** JDK classes a run of this program does not serialize otherwise. */
    private static final Class<?>[] FRESH = {java.util.BitSet.class, java.util.UUID.class, java.util.Locale.class,
        java.util.Currency.class, java.util.TreeSet.class, java.util.ArrayDeque.class, java.util.PriorityQueue.class,
        java.util.Vector.class, java.util.Stack.class, java.util.Hashtable.class};

    private Redeploy() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = !args[0].equals("client");
        boolean both = args[0].equals("both");
        int port = Integer.parseInt(args[1]);
        URL[] dir = {Paths.get(args[2]).toUri().toURL()};
        List<WeakReference<URLClassLoader>> generations = new ArrayList<>();
        Registry registry = server ? LocateRegistry.createRegistry(port) : null;
        Remote live = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null && !line.equals("count"); ) {
            live = generation(server, port, dir, registry, live, generations);
            if (both) {
                generation(false, port, dir, null, null, generations);
            }
        }
        if (live != null) {
            UnicastRemoteObject.unexportObject(live, true);
            registry.unbind("calc1");
            registry.unbind("calc2");
            live = null;
        }
        String names = "";
        for (int i = 0; i < FRESH.length; i++) {
            System.gc();
            Thread.sleep(100);
            // the JDK's class descriptor caches let go of a collected entry, and its class, at their next use, which
            // any serialization makes: here, the descriptor of a class not described before
            ObjectStreamClass.lookupAny(FRESH[i]);
            names = alive(generations);
            if (names.isEmpty()) {
                break;
            }
        }
        System.out.println("RETAINED " + (names.isEmpty() ? 0 : names.split(" ").length) + " " + names);
        for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().equals("Metaspace")) {
                System.out.println("METASPACE " + pool.getUsage().getUsed() / 1024 + " KB, "
                        + java.lang.management.ManagementFactory.getClassLoadingMXBean().getLoadedClassCount()
                        + " classes loaded");
            }
        }
        System.exit(0);
    }

    /** The names of the generations' loaders still reachable, in a frame of its own (as below). */
    private static String alive(List<WeakReference<URLClassLoader>> generations) {
        StringBuilder names = new StringBuilder();
        for (WeakReference<URLClassLoader> ref : generations) {
            URLClassLoader l = ref.get();
            if (l != null) {
                names.append(names.length() == 0 ? "" : " ").append(l.getName());
            }
        }
        return names.toString();
    }

    /** One generation, in a frame of its own (an interpreted frame's dead locals would keep the last one). */
    private static Remote generation(boolean server, int port, URL[] dir, Registry registry, Remote live,
            List<WeakReference<URLClassLoader>> generations) throws Exception {
        ClassLoader app = Redeploy.class.getClassLoader();
        int g = generations.size() + 1;
        URLClassLoader loader = new URLClassLoader((server ? "splugin" : "cplugin") + g, dir, app);
        generations.add(new WeakReference<>(loader));
        Thread.currentThread().setContextClassLoader(loader); // as a container sets it for its deployment
        try {
            if (server) {
                if (live != null) {
                    UnicastRemoteObject.unexportObject(live, true);
                }
                Remote next = (Remote) Class.forName("remora.it.plugin.CalcImpl", true, loader).getConstructor()
                        .newInstance();
                Remote stub = UnicastRemoteObject.exportObject(next, 0);
                registry.rebind("calc1", stub);
                registry.rebind("calc2", stub);
                System.out.println("DEPLOYED " + g);
                return next;
            }
            @SuppressWarnings("unchecked")
            Function<Integer, List<String>> client = (Function<Integer, List<String>>) Class
                    .forName("remora.it.plugin.PluginClient", true, loader).getConstructor().newInstance();
            List<String> seen = client.apply(port);
            loader.close();
            System.out.println("CALLED " + g);
            System.out.println("LINES " + g + " " + seen.size() + " " + seen.get(seen.size() - 1));
            return null;
        } finally {
            Thread.currentThread().setContextClassLoader(app);
        }
    }
}
