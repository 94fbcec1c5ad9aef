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
 * The one transformer Remora registers: it lets every class pass but the few JDK classes that hold hook points, and
 * hands those to the {@link Weaver}, made by the {@link Activation} (and Byte Buddy loaded) when the first of them is
 * loaded. A JVM that never touches RMI pays a map lookup per class load and nothing else.
 *
 * <p>Registered for retransformation, so classes already loaded at install (an attached agent, a stream class loaded
 * before premain) are passed again through {@link #retransformLoaded}. The JVM hands a retransformation the class's
 * original bytes, so weaving is never applied twice. A class that cannot be woven stays the JDK's: the reason is said
 * once and counted as a fallback; nothing is thrown into the class loading that asked.
 */
final class HookTransformer implements ClassFileTransformer {
    private final Map<String, List<HookPoint>> byName = new HashMap<>();
    private final Activation activation;
    private final Stats stats;

    HookTransformer(List<HookPoint> points, Activation activation, Stats stats) {
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
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (loader != null || className == null) {
            return null; // hook points are in java.base and java.rmi, both the boot loader's
        }
        List<HookPoint> points = byName.get(className);
        if (points == null) {
            return null;
        }
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
     * Passes the hooked classes that are already loaded through {@link #transform} again. At premain this looks at
     * every class the JVM has loaded (about 900 in a hello world), so only the names of classes in the hook points'
     * modules are asked for, and compared as the JVM gives them, dotted: converting each loaded class's
     * name took 3-5 ms of a hello world's premain here, asking for them all about 2.
     */
    void retransformLoaded(Instrumentation inst) {
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
                loaded.add(c);
            }
        }
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
