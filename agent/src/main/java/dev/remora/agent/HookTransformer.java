package dev.remora.agent;

import dev.remora.agent.hooks.HookPoint;
import dev.remora.agent.stats.Stats;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transformer Remora registers: it lets every class pass but the few JDK classes that hold hook points, and hands
 * those to the {@link Weaver}, made by the {@link Activation} (and Byte Buddy loaded) when the first of them is
 * loaded.
 *
 * <p>Registered for class loads only, not for retransformation: the JVM keeps what such a transformer made of a class
 * as the starting point of any later retransformation, so another agent that retransforms a hooked class keeps
 * Remora's hooks in it (for a transformer registered for retransformation the JVM starts again from the JDK's bytes,
 * and only while it stays registered are the hooks woven again). That lets it go once every hooked class has been
 * passed to it: from then on the JVM no longer copies each class file it loads into a byte array for it (about 2.5 µs
 * and the class file's size in garbage per class; an app rank of the compare loads 300-500 after its last hooked
 * class, an application that loads its classes lazily many more). A JVM that never loads some hooked class (a client
 * that exports nothing) keeps it.
 *
 * <p>Classes already loaded at install (an attached agent, a stream class loaded before premain) can only be woven
 * by retransformation: for those a second instance is registered for retransformation and stays registered (see
 * {@link #install}). A class that cannot be woven stays the JDK's: the reason is said once and counted as a fallback;
 * nothing is thrown into the class loading that asked.
 */
final class HookTransformer implements ClassFileTransformer {
    private final Map<String, List<HookPoint>> byName;
    private final Activation activation;
    private final Stats stats;
    /** Internal names of hooked classes not passed to this transformer yet: guarded by itself. */
    private final Set<String> pending;
    /** Where this transformer is registered for class loads only, so that it removes itself: null until then. */
    private volatile Instrumentation removeFrom;
    /**
     * Internal names of the hooked classes loaded before install, which only the retransforming twin weaves (the
     * other weaves the rest: a class passed to both would be woven twice). Shared by the two; guarded by itself.
     */
    private final Set<String> retransformed;
    /** True for the retransforming twin. */
    private final boolean twin;

    HookTransformer(List<HookPoint> points, Activation activation, Stats stats) {
        byName = new HashMap<>();
        for (HookPoint h : points) {
            List<HookPoint> l = byName.get(h.internalName());
            if (l == null) {
                l = new ArrayList<>();
                byName.put(h.internalName(), l);
            }
            l.add(h);
        }
        this.activation = activation;
        this.stats = stats;
        this.pending = new HashSet<>(byName.keySet());
        this.retransformed = new HashSet<>();
        this.twin = false;
    }

    /** The retransforming twin of {@link #install}: the same hook points, never removed. */
    private HookTransformer(HookTransformer loads) {
        byName = loads.byName;
        activation = loads.activation;
        stats = loads.stats;
        pending = new HashSet<>();
        retransformed = loads.retransformed;
        twin = true;
    }

    /**
     * Registers this transformer for class loads, then weaves the hooked classes that were loaded before it through a
     * retransforming twin. Once every hooked class has been passed to one of them, this one is removed.
     */
    void install(Instrumentation inst) {
        inst.addTransformer(this, false);
        List<Class<?>> missed = loadedBefore(inst);
        if (!missed.isEmpty()) {
            HookTransformer twin = new HookTransformer(this);
            inst.addTransformer(twin, true);
            twin.retransform(inst, missed);
        }
        removeFrom = inst;
        passed(null);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader != null || className == null) {
            return null; // hook points are in java.base and java.rmi, both the boot loader's
        }
        List<HookPoint> points = byName.get(className);
        if (points == null || twin != isRetransformed(className)) {
            return null;
        }
        try {
            return weave(className, classFile, points);
        } finally {
            if (redefined == null && !twin) {
                passed(className);
            }
        }
    }

    /**
     * Notes that {@code className} (null: none) was passed to this transformer; removes it when no hooked class is
     * left to pass. Inside a class load this only stops the JVM's next calls: the bytes returned for this one stand.
     */
    private void passed(String className) {
        Instrumentation inst;
        synchronized (pending) {
            if (className != null) {
                pending.remove(className);
            }
            inst = removeFrom;
            if (inst == null || !pending.isEmpty()) {
                return;
            }
            removeFrom = null;
        }
        try {
            inst.removeTransformer(this);
            Log.debug("every hooked class has loaded: the class-load transformer is removed");
        } catch (Throwable t) {
            Log.once("transform:remove", "could not remove the class-load transformer (it stays, harmless): " + t, t);
        }
    }

    private boolean isRetransformed(String className) {
        synchronized (retransformed) {
            return retransformed.contains(className);
        }
    }

    private byte[] weave(String className, byte[] classFile, List<HookPoint> points) {
        String typeName = className.replace('/', '.');
        try {
            Weaver weaver = activation.weaver(typeName);
            if (weaver == null) {
                return null; // Remora refused (said once): the JDK stays as it is
            }
            byte[] woven = weaver.weave(typeName, classFile, points);
            Log.debug("instrumented " + typeName);
            return woven;
        } catch (Throwable t) {
            String reason = "could not instrument " + typeName + ", plain RMI there: " + t;
            stats.fallback(reason);
            Log.once("transform:" + typeName, reason, t);
            return null;
        }
    }

    /**
     * The hooked classes that were loaded before this transformer was registered (this transformer did not see them).
     * At premain this looks at every class the JVM has loaded (about 900 in a hello world), so only the names of
     * classes in the hook points' modules are asked for, and compared as the JVM gives them, dotted: converting each
     * loaded class's name took 3-5 ms of a hello world's premain here, asking for them all about 2.
     */
    private List<Class<?>> loadedBefore(Instrumentation inst) {
        Set<String> dotted = new HashSet<>();
        Set<Module> modules = new HashSet<>();
        for (List<HookPoint> l : byName.values()) {
            HookPoint h = l.get(0);
            dotted.add(h.typeName());
            java.util.Optional<Module> m = ModuleLayer.boot().findModule(h.module());
            if (m.isPresent()) { // a JDK without java.rmi has none of those classes loaded
                modules.add(m.get());
            }
        }
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (modules.contains(c.getModule()) && c.getClassLoader() == null && dotted.contains(c.getName())) {
                String internal = c.getName().replace('.', '/');
                synchronized (pending) {
                    if (pending.remove(internal)) { // else it loaded after install's addTransformer, and was woven
                        loaded.add(c);
                        synchronized (retransformed) {
                            retransformed.add(internal);
                        }
                    }
                }
            }
        }
        return loaded;
    }

    /** Passes classes that are already loaded through {@link #transform} again (this is the retransforming twin). */
    private void retransform(Instrumentation inst, List<Class<?>> loaded) {
        for (Class<?> c : loaded) {
            try {
                inst.retransformClasses(c);
            } catch (Throwable t) {
                String reason = "could not instrument " + c.getName() + ", plain RMI there: " + t;
                stats.fallback(reason);
                Log.once("transform:" + c.getName(), reason, t);
            }
        }
    }
}
