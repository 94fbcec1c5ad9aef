package dev.remora.it.loaders;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import java.util.function.Function;

/**
 * Two JVMs that run plugins as an application server runs its deployments: each plugin in a class loader of its own
 * over the same classes ({@code src/test/plugins}, compiled by {@link ClassLoadersIT}), so that every plugin has its
 * own {@code remora.it.plugin.Value}.
 * <ul>
 *   <li>{@code server PORT DIR TCCL}: exports one {@code CalcImpl} per plugin loader ("splugin1", "splugin2") as
 *       "calc1" and "calc2", each with the context class loader {@code TCCL} names ({@code plugin}: its own, as a
 *       container sets it; {@code app}: the application's); prints READY, stops at end of input;</li>
 *   <li>{@code client PORT DIR TCCL}: runs {@code PluginClient} in two loaders of its own ("cplugin1", "cplugin2"),
 *       one after the other, twice; each calls both servers' plugins and its lines are printed;</li>
 *   <li>{@code both PORT DIR TCCL}: the server's plugins and the client's in one JVM, whose calls take the co-located
 *       short-cut (one JVM's plugins calling each other, as an application server's deployments do).</li>
 * </ul>
 */
public final class Plugins {
    private Plugins() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        URL[] dir = {Paths.get(args[2]).toUri().toURL()};
        boolean own = args[3].equals("plugin");
        Remote[] impls = null;
        Registry registry = null;
        if (!args[0].equals("client")) {
            registry = LocateRegistry.createRegistry(port);
            impls = export(registry, loaders("splugin", dir), own);
            if (args[0].equals("server")) {
                System.out.println("READY");
                new BufferedReader(new InputStreamReader(System.in)).readLine();
            }
        }
        if (!args[0].equals("server")) {
            call(port, loaders("cplugin", dir), own);
        }
        if (impls != null) {
            for (Remote impl : impls) {
                UnicastRemoteObject.unexportObject(impl, true);
            }
            UnicastRemoteObject.unexportObject(registry, true);
        }
        System.exit(0);
    }

    private static URLClassLoader[] loaders(String prefix, URL[] dir) {
        ClassLoader app = Plugins.class.getClassLoader();
        return new URLClassLoader[] {new URLClassLoader(prefix + 1, dir, app), new URLClassLoader(prefix + 2, dir, app)};
    }

    /** Exports one CalcImpl per plugin as "calc1", "calc2", with the plugin's or the application's context loader. */
    private static Remote[] export(Registry registry, URLClassLoader[] plugins, boolean own) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader app = Plugins.class.getClassLoader();
        Remote[] impls = new Remote[plugins.length];
        for (int i = 0; i < plugins.length; i++) {
            t.setContextClassLoader(own ? plugins[i] : app);
            impls[i] = (Remote) Class.forName("remora.it.plugin.CalcImpl", true, plugins[i])
                    .getConstructor().newInstance();
            registry.rebind("calc" + (i + 1), UnicastRemoteObject.exportObject(impls[i], 0));
        }
        t.setContextClassLoader(app);
        return impls;
    }

    /** Each plugin's PluginClient in turn, twice; prints their lines. */
    private static void call(int port, URLClassLoader[] plugins, boolean own) throws Exception {
        Thread t = Thread.currentThread();
        ClassLoader app = Plugins.class.getClassLoader();
        for (int round = 0; round < 2; round++) {
            for (URLClassLoader plugin : plugins) {
                t.setContextClassLoader(own ? plugin : app);
                @SuppressWarnings("unchecked")
                Function<Integer, List<String>> client = (Function<Integer, List<String>>) Class
                        .forName("remora.it.plugin.PluginClient", true, plugin).getConstructor().newInstance();
                client.apply(port).forEach(System.out::println);
            }
        }
        t.setContextClassLoader(app);
    }
}
