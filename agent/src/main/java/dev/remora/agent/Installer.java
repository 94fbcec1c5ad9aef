package dev.remora.agent;

import dev.remora.agent.bridge.BridgeInjector;
import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import dev.remora.rmi.CallRouter;
import dev.remora.agent.hooks.HookCheck;
import dev.remora.agent.hooks.HookPoint;
import dev.remora.agent.stats.Stats;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The second stage of the agent, reached from {@link RemoraAgent} only. Reads the configuration, refuses JDK tools
 * and a second agent, and registers the {@link HookTransformer}. Every refusal is one line on stderr and plain RMI
 * for this JVM (or an exit with {@code remora.strict=true}).
 *
 * <p>Nothing else happens at premain: the hook-point check, the opened packages, the bridge, the bound hooks and Byte
 * Buddy come when the first hooked JDK class loads ({@link Activation}), the router (rmi-shim, serializer,
 * transports, native code, threads) when the first hook calls it ({@link LazyRouter}). A JVM that never uses RMI
 * loads no more than this class's few collaborators (docs/startup.md).
 */
public final class Installer {
    /** Exit status with remora.strict=true when Remora cannot do what it was asked (EX_CONFIG of sysexits.h). */
    public static final int STRICT_EXIT = 78;

    /** JDK tools that JAVA_TOOL_OPTIONS would also start with the agent: left alone. */
    private static final String[] TOOL_PREFIXES = {
        "com.sun.tools.", "sun.tools.", "jdk.internal.", "sun.security.tools.", "jdk.jcmd", "jdk.jfr.internal.",
        "sun.rmi.registry.", // rmiregistry: its only object, the registry, is served by JRMP with or without Remora
    };

    /** Set by the first install in this class loader: a second -javaagent of the same jar is refused at once. */
    private static boolean installed;

    private Installer() {
    }

    /** Entry point for {@code premain} and {@code agentmain}; returns normally in every case but a strict exit. */
    public static void install(String agentArgs, Instrumentation inst, boolean attached) {
        long start = System.nanoTime();
        // Byte Buddy's safe mode: no sun.misc.Unsafe, so JDK 25 prints no warning on Remora's behalf. The shade
        // plugin relocates this literal with Byte Buddy itself, so it sets "dev.remora.internal.bytebuddy.safe"
        // and leaves an application's own Byte Buddy untouched.
        System.setProperty("net.bytebuddy.safe", "true");
        RemoraConfig config = RemoraConfig.from(System.getProperties(), agentArgs);
        Log.setLevel(config.get(Property.LOG));
        if (!config.problems().isEmpty()) {
            for (String p : config.problems()) {
                Log.error(p);
            }
            refuse(config, "bad remora.* configuration (see above)");
            return;
        }
        if (!config.enabled()) {
            Log.debug("remora.enabled=false: nothing installed");
            return;
        }
        String tool = jdkTool();
        if (tool != null) {
            Log.debug("not instrumenting the JDK tool " + tool);
            return;
        }
        synchronized (Installer.class) {
            if (installed || BridgeInjector.existing() != null) {
                Log.info("Remora is already installed in this JVM; this second -javaagent/attach is ignored");
                return;
            }
            installed = true;
        }
        try {
            boolean oosFast = "fast".equals(config.get(Property.OOS)) && oosFastPossible();
            boolean counting = config.flag(Property.STATS) && config.flag(Property.STATS_STREAMS);
            Stats stats = new Stats();
            boolean early = config.flag(Property.CONNECT_EARLY);
            List<HookPoint> points = points(oosFast, counting, early);
            // remora.oos=fast's points were checked by oosFastPossible: the activation checks the others
            Activation activation = new Activation(inst, config, stats, oosFast, points(false, counting, early));
            if ((config.strict() || oosFast) && activation.weaver("(premain)") == null) {
                return;
            }
            HookTransformer transformer = new HookTransformer(points, activation, stats);
            transformer.install(inst);
            if (config.flag(Property.STATS)) {
                Runtime.getRuntime().addShutdownHook(new Thread(new StatsReport(stats), "remora-stats"));
            }
            if (Log.debugEnabled()) {
                Log.debug("installed in " + ms(System.nanoTime() - start) + " ms"
                        + (attached ? " (attached to a running JVM)" : "") + "; the rest when a hooked class loads");
            }
        } catch (Throwable t) {
            refuse(config, "install failed, " + t);
            if (Log.debugEnabled()) {
                t.printStackTrace();
            }
        }
    }

    static String ms(long nanos) {
        return String.valueOf(nanos / 100_000 / 10.0);
    }

    /**
     * The hook points to weave: the RMI ones (the DGC client's with remora.connect.early), the stream counters when
     * asked for, remora.oos=fast's when on.
     */
    private static List<HookPoint> points(boolean oosFast, boolean counting, boolean early) {
        List<HookPoint> points = new ArrayList<>();
        for (HookPoint h : HookPoint.ALL) {
            if ((counting || !h.countsOnly()) && (early || !h.opensEarly())) {
                points.add(h);
            }
        }
        if (oosFast) {
            points.addAll(HookPoint.OOS_FAST);
        }
        return points;
    }

    /** remora.stats' spins_lost, read from the transports when reported (no lambda on the first call's path). */
    private static final class SpinsLost implements java.util.function.LongSupplier {
        @Override
        public long getAsLong() {
            return dev.remora.rmi.transport.SpinBackoff.lostSoFar();
        }
    }

    /** The shutdown hook of remora.stats=true: the report on stderr. */
    private static final class StatsReport implements Runnable {
        private final Stats stats;

        StatsReport(Stats stats) {
            this.stats = stats;
        }

        @Override
        public void run() {
            System.err.println(stats.report());
        }
    }

    /**
     * The router for the configured transport: jrmp leaves every call to the JDK; socket, fabric and auto reroute
     * calls between Remora JVMs onto Remora's protocol (fabric and auto offer libfabric too, socket when it fails).
     */
    static CallRouter router(RemoraConfig config, Stats stats) {
        String transport = config.get(Property.TRANSPORT);
        if ("jrmp".equals(transport)) {
            return CallRouter.JRMP;
        }
        stats.spinsLost = new SpinsLost();
        dev.remora.rmi.RouterOptions options = routerOptions(config, stats);
        final dev.remora.rmi.RemoraRouter router = new dev.remora.rmi.RemoraRouter(options);
        if (config.flag(Property.STATS)) {
            stats.onewayCandidates(new java.util.function.Supplier<List<String>>() {
                @Override
                public List<String> get() {
                    return router.onewayCandidates(5);
                }
            });
        }
        return router;
    }

    /** The router's settings from the agent's properties (the defaults of both agree: DefaultsAgreeTest). */
    static dev.remora.rmi.RouterOptions routerOptions(RemoraConfig config, final Stats stats) {
        String transport = config.get(Property.TRANSPORT);
        dev.remora.rmi.RouterOptions options = dev.remora.rmi.RouterOptions.defaults()
                .dispatch("inline".equals(config.get(Property.DISPATCH)) ? dev.remora.rmi.RouterOptions.Dispatch.INLINE
                        : "pool".equals(config.get(Property.DISPATCH)) ? dev.remora.rmi.RouterOptions.Dispatch.POOL
                        : dev.remora.rmi.RouterOptions.Dispatch.AUTO)
                .handoffMicros(config.integer(Property.DISPATCH_HANDOFF))
                .probeTimeoutMillis(config.integer(Property.PROBE_TIMEOUT))
                .connectEarly(config.flag(Property.CONNECT_EARLY))
                .tracing(config.flag(Property.TRACING))
                .maxFrameBytes(config.integer(Property.FRAME_MAX))
                .transport("fabric".equals(transport) ? dev.remora.rmi.RouterOptions.Transport.FABRIC
                        : "socket".equals(transport) ? dev.remora.rmi.RouterOptions.Transport.SOCKET
                        : dev.remora.rmi.RouterOptions.Transport.AUTO)
                .nativeEnabled(config.flag(Property.NATIVE))
                .fabricProvider(config.get(Property.FABRIC_PROVIDER))
                .spareBytes(config.integer(Property.SERIALIZER_SPARES))
                .fabric(dev.remora.fabric.FabricOptions.defaults()
                        .withSpinNanos(config.integer(Property.FABRIC_SPIN))
                        .withSpinMaxNanos(config.integer(Property.FABRIC_SPIN_MAX))
                        .withSendRingBytes(config.integer(Property.FABRIC_RING)))
                .fabricShared(config.flag(Property.FABRIC_SHARED))
                .fabricUpgrade(!"false".equals(config.get(Property.FABRIC_UPGRADE)),
                        "always".equals(config.get(Property.FABRIC_UPGRADE)),
                        config.integer(Property.FABRIC_UPGRADE_AFTER))
                .fabricSleepNanos(config.integer(Property.FABRIC_SLEEP))
                .socketSpinNanos(config.integer(Property.SOCKET_SPIN))
                .socketSpinMaxNanos(config.integer(Property.SOCKET_SPIN_MAX))
                .socketUnix(config.flag(Property.SOCKET_UNIX), null)
                .faultSerializer("serializer".equals(config.get(Property.DEBUG_FAULTS)))
                .faultSend("send".equals(config.get(Property.DEBUG_FAULTS)))
                .serializer("jdk".equals(config.get(Property.SERIALIZER))
                        ? dev.remora.rmi.RouterOptions.Serializer.JDK : dev.remora.rmi.RouterOptions.Serializer.FAST)
                .asyncMethods(Property.methodList(config.get(Property.ASYNC)),
                        Property.methodList(config.get(Property.FUTURE)))
                .asyncMaxPending(config.integer(Property.ASYNC_MAX_PENDING))
                .asyncBatch(config.flag(Property.ASYNC_BATCH))
                .futureBatch(config.flag(Property.FUTURE_BATCH))
                .typeCache("call".equals(config.get(Property.TYPECACHE)) ? dev.remora.serializer.TypeCacheMode.CALL
                        : dev.remora.serializer.TypeCacheMode.CONNECTION)
                .listener(new dev.remora.rmi.RouterListener() {
                    @Override
                    public void bytes(long out, long in) {
                        if (out != 0) {
                            stats.bytesOut.add(out);
                        }
                        if (in != 0) {
                            stats.bytesIn.add(in);
                        }
                    }

                    @Override
                    public void note(String key, String message) {
                        Log.once("router:" + key, message);
                    }

                    @Override
                    public void fallback(String key, String message) {
                        stats.fallback(message);
                        Log.once("router:" + key, message);
                    }

                    @Override
                    public void typeDescriptors(int n) {
                        stats.typeDescriptors.add(n);
                    }

                    @Override
                    public void handoff() {
                        stats.handoffs.increment();
                    }

                    @Override
                    public void refused(String key, String message) {
                        stats.asyncRefused.increment();
                        Log.once("router:" + key, message);
                    }

                    @Override
                    public void traceContext(boolean sent) {
                        (sent ? stats.traceContextsSent : stats.traceContextsReceived).increment();
                    }

                    @Override
                    public void asyncCall(boolean future) {
                        (future ? stats.futureCalls : stats.onewayCalls).increment();
                    }

                    @Override
                    public void upgraded(String what) {
                        stats.linksUpgraded.increment();
                        Log.debug(what);
                    }

                    @Override
                    public void asyncTask(boolean captured) {
                        (captured ? stats.asyncTasks : stats.asyncTasksSync).increment();
                    }

                    @Override
                    public void onewayBatch(int calls) {
                        stats.onewayBatches.increment();
                    }

                    @Override
                    public void replyBatch(int replies) {
                        stats.futureReplyBatches.increment();
                    }

                    @Override
                    public void onewayFailed(String method, Throwable thrown) {
                        stats.onewayExceptions.increment();
                        Log.limited("oneway-failed", "one-way call " + method + " threw " + thrown
                                + " (its caller did not wait; counted as oneway_exceptions)");
                    }

                    @Override
                    public void onewayUnconfirmed(int n, String message) {
                        stats.onewayUnconfirmed.add(n);
                        Log.limited("oneway-unconfirmed", message);
                    }

                    @Override
                    public void linked(String technology, String what) {
                        ("fabric".equals(technology) ? stats.linksFabric : "unix".equals(technology) ? stats.linksUnix
                                : stats.linksSocket).increment();
                        Log.debug(what);
                    }

                    @Override
                    public void debug(String message) {
                        Log.debug(message);
                    }
                });
        options.connections(config.integer(Property.CONNECTIONS));
        int threads = config.integer(Property.DISPATCH_THREADS);
        if (threads > 0) {
            options.poolThreads(threads);
        }
        options.adviseOneway(config.flag(Property.STATS));
        return options;
    }

    static void refuse(RemoraConfig config, String why) {
        if (config.strict()) {
            Log.error(why + "; exiting because remora.strict=true");
            System.exit(STRICT_EXIT);
        }
        Log.error(why + "; this JVM runs plain RMI");
    }

    static String jdkTool() {
        String command = System.getProperty("sun.java.command", "");
        int space = command.indexOf(' ');
        String main = space < 0 ? command : command.substring(0, space);
        // java -m module/class (jstatd: jdk.jstatd/sun.tools.jstatd.Jstatd): the module's name or the class's
        String className = main.substring(main.indexOf('/') + 1);
        for (String prefix : TOOL_PREFIXES) {
            if (main.startsWith(prefix) || className.startsWith(prefix)) {
                return main;
            }
        }
        return null;
    }

    /** Hook points the running JDK lacks, read from its class files. */
    public static List<String> missingHookPoints() {
        return HookCheck.missing(HookPoint.ALL);
    }

    /**
     * JDK 22+ warns when code on the class path calls {@code System.load} unless native access is enabled for it, and
     * the agent jar's {@code Enable-Native-Access} attribute is ignored (only the main jar's counts). Remora's classes
     * live in the class path's unnamed module, whose flag is shared: when the native transport may be used and the
     * user has not chosen a native-access policy on the command line, Remora enables it for ALL-UNNAMED as
     * {@code --enable-native-access=ALL-UNNAMED} would, when the router is made ({@link LazyRouter}), before any
     * library can load. {@code remora.native=false} or any
     * {@code --enable-native-access}/{@code --illegal-native-access} option leaves the JDK's default alone.
     */
    static void enableNativeAccess(Instrumentation inst, RemoraConfig config) {
        if (Runtime.version().feature() < 22 || !config.flag(Property.NATIVE)
                || "jrmp".equals(config.get(Property.TRANSPORT)) || "socket".equals(config.get(Property.TRANSPORT))) {
            return;
        }
        String[] args = commandLine();
        String env = System.getenv("JDK_JAVA_OPTIONS");
        for (String a : args) {
            if (a.startsWith("--enable-native-access") || a.startsWith("--illegal-native-access")) {
                Log.debug("native access: the command line chose (" + a + "), Remora leaves it");
                return;
            }
        }
        if (env != null && env.contains("native-access")) {
            Log.debug("native access: JDK_JAVA_OPTIONS chose, Remora leaves it");
            return;
        }
        try {
            inst.redefineModule(Object.class.getModule(), Collections.emptySet(), Collections.emptyMap(),
                    Map.of("java.lang", Set.of(Installer.class.getModule())), Collections.emptySet(),
                    Collections.emptyMap());
            // a method handle invoked exactly: Method.invoke spun classes for its adapter (JDK 18+ reflection)
            MethodHandle enable = MethodHandles.privateLookupIn(Module.class, MethodHandles.lookup())
                    .findStatic(Module.class, "implAddEnableNativeAccessToAllUnnamed", MethodType.methodType(void.class));
            enable.invokeExact();
            Log.debug("native access enabled for the class path (ALL-UNNAMED) so the fabric transport loads silently");
        } catch (Throwable e) { // invokeExact declares Throwable; nothing here may fail the router's making
            Log.debug("could not enable native access (" + e + "); JDK 22+ may print a restricted-method warning"
                    + " when the fabric transport loads; add --enable-native-access=ALL-UNNAMED or set"
                    + " remora.native=false");
        }
    }

    /**
     * This process's command line: {@code /proc/self/cmdline} on Linux (the process handle's {@code info()} reads the
     * same file, but its first use spun four lambda classes), else the process handle's; empty when neither tells.
     */
    static String[] commandLine() {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc/self/cmdline"));
            List<String> args = new ArrayList<>();
            int from = 0;
            for (int i = 0; i < b.length; i++) {
                if (b[i] == 0) {
                    args.add(new String(b, from, i - from, StandardCharsets.UTF_8));
                    from = i + 1;
                }
            }
            if (!args.isEmpty()) {
                return args.subList(1, args.size()).toArray(new String[0]); // as info().arguments(): no executable
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the process handle
        }
        return ProcessHandle.current().info().arguments().orElse(new String[0]);
    }

    /**
     * Exports jdk.internal.misc to Remora's module, for the fast serializer's field access (its FieldAccess, which
     * reads the same property): the JDK's own serialization copies fields with that Unsafe.
     */
    static void exportUnsafe(Instrumentation inst, RemoraConfig config) {
        if (!"true".equals(config.get(Property.SERIALIZER_UNSAFE))) {
            return;
        }
        try {
            exportFromJavaBase(inst, "jdk.internal.misc");
        } catch (RuntimeException e) {
            // the serializer then copies fields through method handles: slower to warm up, the same results
            Log.debug("jdk.internal.misc not exported to Remora (" + e + "): serializers use method handles");
        }
    }

    /**
     * remora.socket.unix=true (the default): sun.nio.ch exported to Remora, whose Unix domain socket links wait on
     * their channel with one poll, as the JDK's blocking channels do (rmi-shim's ChannelPark).
     */
    static void exportChannels(Instrumentation inst, RemoraConfig config) {
        if (!config.flag(Property.SOCKET_UNIX)) {
            return;
        }
        try {
            exportFromJavaBase(inst, "sun.nio.ch");
        } catch (RuntimeException e) {
            // connections on one host then stay on TCP: the router's UnixTechnology says so once, as a fallback
            Log.debug("sun.nio.ch not exported to Remora (" + e + "): no Unix domain sockets");
        }
    }

    /** Exports a package of java.base to Remora's module (the agent's, rmi-shim's and the serializer's). */
    static void exportFromJavaBase(Instrumentation inst, String pkg) {
        Map<String, Set<Module>> export = Map.of(pkg, Set.of(Installer.class.getModule()));
        inst.redefineModule(Object.class.getModule(), Collections.emptySet(), export, Collections.emptyMap(),
                Collections.emptySet(), Collections.emptyMap());
    }

    /** Exports and opens the sun.rmi packages to Remora's module: the user adds no --add-opens. */
    static void openRmiPackages(Instrumentation inst) throws ClassNotFoundException {
        java.util.Optional<Module> rmi = ModuleLayer.boot().findModule("java.rmi");
        if (rmi.isEmpty()) {
            throw new ClassNotFoundException("this runtime has no java.rmi module");
        }
        Set<Module> self = Set.of(Installer.class.getModule());
        Map<String, Set<Module>> pkgs = new LinkedHashMap<>();
        for (String p : new String[] {"sun.rmi.server", "sun.rmi.transport", "sun.rmi.transport.tcp"}) {
            pkgs.put(p, self);
        }
        inst.redefineModule(rmi.get(), Collections.emptySet(), pkgs, pkgs, Collections.emptySet(), Collections.emptyMap());
    }

    /**
     * remora.oos=fast: true when the JDK has every hook point it needs. Otherwise one line says why the
     * application's streams stay in the JDK's format; RMI is not affected either way.
     */
    private static boolean oosFastPossible() {
        List<String> missing = HookCheck.missing(HookPoint.OOS_FAST);
        if (!missing.isEmpty()) {
            Log.error("remora.oos=fast needs hook points this JDK (" + Runtime.version() + ") lacks: "
                    + String.join("; ", missing) + "; the application's Object streams stay in the JDK's format");
            return false;
        }
        return true;
    }
}
