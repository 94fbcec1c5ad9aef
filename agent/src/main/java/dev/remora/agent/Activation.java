package dev.remora.agent;

import dev.remora.agent.bridge.BridgeInjector;
import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import dev.remora.agent.hooks.HookCheck;
import dev.remora.agent.hooks.HookPoint;
import dev.remora.agent.hooks.Hooks;
import dev.remora.agent.stats.Stats;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * What Remora does once before it weaves its first hook: checks that the JDK has every hook point (from its class
 * files; one message and plain RMI for the whole JVM when one is missing, so no class is ever half hooked), opens the
 * JDK packages it needs, defines the bridge, binds the hooks, makes the {@link Weaver}. The {@link HookTransformer}
 * asks for it when the first hooked JDK class loads, so a JVM that never touches RMI pays for none of it; the
 * installer asks at premain when it must (remora.strict=true, which exits at start on a missing point;
 * remora.oos=fast, whose handles name the Object streams, which must not load inside their own transformation).
 *
 * <p>Under a SecurityManager (JDK 17, set by the application before RMI's classes load) Remora activates nothing: its
 * code holds no permissions under the policy, so it says once that it leaves RMI to JRMP, as the hooks say when the
 * SecurityManager comes after them. Nor does it when the boot layer lacks jdk.unsupported ({@code java -m} of a module
 * that does not require it): that is a failed install, said once with the option that fixes it.
 */
final class Activation {
    private final Instrumentation inst;
    private final RemoraConfig config;
    private final Stats stats;
    private final boolean oosFast;
    /** The hook points to check before weaving: the transformer's, but remora.oos=fast's (checked at premain). */
    private final List<HookPoint> points;
    /** Guarded by this. */
    private boolean done;
    /** Guarded by this: the thread activating, whose own class loads must not wait for it (see {@link #weaver}). */
    private Thread activating;
    /** Guarded by this; null until done, and after a refusal. */
    private Weaver weaver;
    /** Guarded by this; null until activated. */
    private LazyRouter router;

    Activation(Instrumentation inst, RemoraConfig config, Stats stats, boolean oosFast, List<HookPoint> points) {
        this.inst = inst;
        this.config = config;
        this.stats = stats;
        this.oosFast = oosFast;
        this.points = points;
    }

    /**
     * The weaver, activating first if need be; null when Remora refused (said once) and the JDK stays plain. A hooked
     * class that activation itself loads would find no weaver yet: activation loads none (the bridge's methods are
     * reached without resolving their signatures, which name the Object streams), and one that it did would stay the
     * JDK's and be said once.
     */
    synchronized Weaver weaver(String typeName) {
        if (activating == Thread.currentThread()) {
            Log.once("activation-load:" + typeName, typeName + " was loaded while Remora was activating and stays"
                    + " the JDK's; please report this");
            return null;
        }
        if (!done) {
            activating = Thread.currentThread();
            try {
                weaver = activate();
            } catch (Throwable t) {
                Installer.refuse(config, "install failed, " + t); // e.g. a damaged jar: said once, the JDK stays plain
            } finally {
                activating = null;
                done = true;
            }
            if (weaver != null && router != null && !oosFast) {
                // RMI is starting to be used (remora.oos=fast activates at premain, before anything shows that)
                router.makeSoon();
            }
        }
        return weaver;
    }

    /**
     * Why a JVM whose boot layer lacks jdk.unsupported stays plain: Remora's serializer makes objects and reaches their
     * serialization methods through {@code sun.reflect.ReflectionFactory}, as serialization libraries do, and a peer
     * with the agent sends it values in that format. {@code java -m} resolves only what the main module requires.
     */
    static final String NO_JDK_UNSUPPORTED = "the module jdk.unsupported is not in this JVM's boot layer (its main"
            + " module does not require it, or the runtime image lacks it), and Remora's serializer needs it: add"
            + " --add-modules jdk.unsupported to the java command (for a JDK tool, -J--add-modules=jdk.unsupported)";

    @SuppressWarnings("removal")
    private static boolean securityManager() {
        return System.getSecurityManager() != null;
    }

    private Weaver activate() {
        if (securityManager()) {
            // Remora's code holds no permissions under the policy: it could neither read the JDK's class files nor
            // initialise Byte Buddy, and it would leave every call to JRMP anyway (Hooks.underSecurityManager)
            Log.once("security-manager", Hooks.SECURITY_MANAGER);
            return null;
        }
        if (!ModuleLayer.boot().findModule("jdk.unsupported").isPresent()) {
            stats.fallback(NO_JDK_UNSUPPORTED);
            Installer.refuse(config, NO_JDK_UNSUPPORTED);
            return null;
        }
        long t0 = System.nanoTime();
        List<String> missing = HookCheck.missing(points);
        if (!missing.isEmpty()) {
            Installer.refuse(config, "this JDK (" + Runtime.version() + ") lacks hook points Remora needs: "
                    + String.join("; ", missing) + ". Supported: JDK 17 and 25");
            return null;
        }
        if (BridgeInjector.existing() != null) {
            // another copy of the agent, in a class loader of its own, activated first
            Log.info("Remora is already installed in this JVM; this second -javaagent/attach is ignored");
            return null;
        }
        try {
            long t1 = System.nanoTime();
            Installer.openRmiPackages(inst);
            Installer.exportUnsafe(inst, config);
            Installer.exportChannels(inst, config);
            long t2 = System.nanoTime();
            Class<?> bridge = BridgeInjector.inject(inst);
            long t3 = System.nanoTime();
            router = new LazyRouter(inst, config, stats);
            if (config.flag(Property.EXIT_FAST)) {
                ExitRelease.install(inst, router);
            }
            Hooks.bind(stats, router);
            MethodHandle[] handles = Hooks.handles(oosFast);
            // a method handle, not getMethod: reflection would resolve every public method's signature and load the
            // Object streams in the middle of this class load; invoked exactly, as invoke() spun an adapter
            MethodHandle install = MethodHandles.publicLookup().findStatic(bridge, "install",
                    MethodType.methodType(void.class, MethodHandle[].class));
            install.invokeExact(handles);
            if ("advice".equals(config.get(Property.DEBUG_FAULTS))) {
                MethodHandle faults = MethodHandles.publicLookup().findStatic(bridge, "injectFaults",
                        MethodType.methodType(void.class));
                faults.invokeExact();
            }
            long t4 = System.nanoTime();
            Weaver w = new Weaver(Activation.class.getClassLoader(), WovenCache.open(config.get(Property.CACHE_DIR)));
            long t5 = System.nanoTime();
            if (Log.debugEnabled()) {
                Log.debug("activated in " + Installer.ms(t5 - t0) + " ms: hook-point check " + Installer.ms(t1 - t0)
                        + ", modules " + Installer.ms(t2 - t1) + ", bridge " + Installer.ms(t3 - t2) + ", bind "
                        + Installer.ms(t4 - t3) + ", weaver " + Installer.ms(t5 - t4));
            }
            return w;
        } catch (Throwable t) {
            Installer.refuse(config, "install failed, " + t);
            if (Log.debugEnabled()) {
                t.printStackTrace();
            }
            return null;
        }
    }
}
