package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Preload#LEAVES} are initialised on the router's start thread while an application thread may initialise
 * them too. That is safe only if their initialisers need no other class of Remora's (JDK classes never wait for
 * Remora's): each leaf is initialised here in a class loader of its own, which records every Remora class it is asked
 * for, and nothing but the leaf (and its own nested classes) may be.
 */
class PreloadLeavesTest {

    /** Loads Remora's classes itself, from this JVM's class path, and records them; the rest from the JDK. */
    static final class Recording extends URLClassLoader {
        final List<String> loaded = new ArrayList<>();

        Recording() throws Exception {
            super(classPath(), ClassLoader.getPlatformClassLoader());
        }

        private static URL[] classPath() throws Exception {
            String[] parts = System.getProperty("java.class.path").split(File.pathSeparator);
            URL[] urls = new URL[parts.length];
            for (int i = 0; i < parts.length; i++) {
                urls[i] = new File(parts[i]).toURI().toURL();
            }
            return urls;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && name.startsWith("dev.remora.")) {
                    loaded.add(name);
                    c = findClass(name);
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    @Test
    void eachLeafInitialisesWithoutAnyOtherOfRemorasClasses() throws Exception {
        for (String leaf : Preload.LEAVES) {
            try (Recording loader = new Recording()) {
                Class<?> c = Class.forName(leaf, true, loader);
                if (leaf.endsWith(".RmiInternals")) { // its initialiser took the path it takes in the agent
                    c.getMethod("check").invoke(null);
                }
                List<String> others = new ArrayList<>();
                for (String n : loader.loaded) {
                    if (!n.equals(leaf) && !n.startsWith(leaf + "$")) {
                        others.add(n);
                    }
                }
                assertEquals(List.of(), others, leaf + "'s initialiser needs other classes of Remora's: initialising it"
                        + " ahead on another thread could deadlock with an application thread; take it out of"
                        + " Preload.LEAVES");
            }
        }
    }
}
