package dev.remora.serializer;

import java.util.Map;
import java.util.Optional;

/**
 * Turns a class name read from the peer into a local class. Called once per type descriptor per connection, never
 * per object. The default follows {@link java.io.ObjectInputStream#resolveClass}: the latest user-defined class loader
 * on the calling thread's stack, else the platform loader. The RMI shim may pass the exported object's loader or the
 * context class loader with {@link #of(ClassLoader)}.
 */
@FunctionalInterface
public interface ClassResolver {

    Class<?> resolve(String name) throws ClassNotFoundException;

    /** Resolves through the given loader ({@code null}: the bootstrap loader), never initializing the class. */
    static ClassResolver of(ClassLoader loader) {
        return name -> {
            Class<?> p = primitive(name);
            return p != null ? p : Class.forName(name, false, loader);
        };
    }

    /** The JDK rule: the first class on the stack whose loader is neither bootstrap nor platform supplies the loader. */
    static ClassResolver latestUserDefinedLoader() {
        return LatestUserDefinedLoader.INSTANCE;
    }

    /**
     * Whether {@code l} is a user-defined loader: neither the bootstrap loader (null) nor the platform loader, whose
     * classes are the JDK's and resolve alike whatever the loader asked (the JDK's latestUserDefinedLoader rule).
     */
    static boolean userDefined(ClassLoader l) {
        return l != null && l != LatestUserDefinedLoader.PLATFORM;
    }

    /**
     * Whether classes of {@code l} can be unloaded while this JVM runs: a user-defined loader other than the system
     * (application) class loader, such as an application server's deployment or a plugin's. What a connection keeps
     * of such classes it keeps weakly or softly, so that a dropped deployment's loader can go.
     */
    static boolean unloadable(ClassLoader l) {
        return userDefined(l) && l != LatestUserDefinedLoader.SYSTEM;
    }

    /** {@code int}, {@code void}... or null. */
    static Class<?> primitive(String name) {
        return LatestUserDefinedLoader.PRIMITIVES.get(name);
    }

    /** The default resolver. */
    final class LatestUserDefinedLoader implements ClassResolver {
        static final LatestUserDefinedLoader INSTANCE = new LatestUserDefinedLoader();
        static final Map<String, Class<?>> PRIMITIVES = Map.of("boolean", boolean.class, "byte", byte.class,
                "char", char.class, "short", short.class, "int", int.class, "long", long.class,
                "float", float.class, "double", double.class, "void", void.class);
        private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
        /** Remora's own packages (not its tests' or benchmarks' applications, which are the user's code). */
        private static final String[] OURS = {"dev.remora.serializer.", "dev.remora.agent.", "dev.remora.rmi.",
            "dev.remora.fabric.", "dev.remora.bootstrap."};
        private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();
        /** The system (application) class loader, whose classes stay loaded; null if it could not be had yet. */
        private static final ClassLoader SYSTEM = systemLoader();

        private static ClassLoader systemLoader() {
            try {
                return ClassLoader.getSystemClassLoader();
            } catch (IllegalStateException | SecurityException e) { // still being set up (a custom system loader)
                return null;
            }
        }

        private LatestUserDefinedLoader() {
        }

        @Override
        public Class<?> resolve(String name) throws ClassNotFoundException {
            Class<?> p = PRIMITIVES.get(name);
            if (p != null) {
                return p;
            }
            Optional<ClassLoader> loader = WALKER.walk(s -> s.map(StackWalker.StackFrame::getDeclaringClass)
                    .filter(c -> !ours(c.getName())).map(Class::getClassLoader)
                    .filter(ClassResolver::userDefined).findFirst());
            ClassLoader l = loader.orElse(null);
            if (l == null) {
                // Our own classes' loader: an agent jar on the system class path sees what the application sees.
                l = LatestUserDefinedLoader.class.getClassLoader();
                if (l == null) {
                    l = ClassLoader.getSystemClassLoader();
                }
            }
            return Class.forName(name, false, l);
        }

        private static boolean ours(String className) {
            for (String p : OURS) {
                if (className.startsWith(p)) {
                    return true;
                }
            }
            return false;
        }

    }
}
