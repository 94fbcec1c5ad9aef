package dev.remora.agent;

import dev.remora.agent.bridge.BridgeInjector;
import dev.remora.agent.hooks.HookPoint;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.implementation.bytecode.member.MethodInvocation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

import static net.bytebuddy.matcher.ElementMatchers.named;

/**
 * Byte Buddy's half of the {@link Weaver}, loaded only when a class is not in the {@link WovenCache}: inlines Remora's
 * advice into one JDK class's bytes: what Byte Buddy's {@code AgentBuilder} did with
 * {@code disableClassFormatChanges()} and the decorate strategy, without its matching of every loaded class (the
 * {@link HookTransformer} picks the classes by name). The advice is read as bytes, never loaded, with the bridge
 * renamed to {@code java.io.RemoraBridge} ({@link #adviceLocator}); every advice method suppresses
 * Throwable into {@code RemoraBridge.adviceFailed}.
 *
 * <p>In the shaded jar this class lives with Byte Buddy in a nested jar, loaded by a class loader of its own
 * ({@link WeaverLoader}): public, and it uses only public members of the agent's other classes.
 */
public final class AdviceWeaver implements AdviceWeaving {
    private final ByteBuddy byteBuddy = new ByteBuddy()
            .with(TypeValidation.DISABLED)
            .with(Implementation.Context.Disabled.Factory.INSTANCE)
            .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);
    private final ClassFileLocator advice;
    private final TypePool advicePool;
    private final Advice.ExceptionHandler handler;

    public AdviceWeaver(ClassLoader agentLoader) {
        advice = adviceLocator(agentLoader);
        advicePool = new TypePool.Default.WithLazyResolution(TypePool.CacheProvider.Simple.withObjectType(),
                new ClassFileLocator.Compound(advice, ClassFileLocator.ForClassLoader.ofBootLoader()),
                TypePool.Default.ReaderMode.FAST);
        // described from the renamed bytes, not by reflection on the bridge (which would load the Object streams)
        MethodDescription failed = advicePool.describe(BridgeInjector.TARGET_NAME).resolve().getDeclaredMethods()
                .filter(named("adviceFailed")).getOnly();
        handler = new Advice.ExceptionHandler.Simple(MethodInvocation.invoke(failed));
    }

    /** A locator that hands out agent classes (advice) with the bridge renamed, and the renamed bridge itself. */
    static ClassFileLocator adviceLocator(ClassLoader agentLoader) {
        return new ClassFileLocator() {
            @Override
            public Resolution locate(String name) throws IOException {
                String path = name.replace('.', '/');
                if (path.equals(BridgeInjector.TARGET)) {
                    return new Resolution.Explicit(BridgeInjector.remap(
                            BridgeInjector.read(agentLoader, BridgeInjector.SOURCE)));
                }
                // Remora's advice, and Byte Buddy's annotations on it (shaded into dev/remora/internal in the jar;
                // in a build without shading, the unit tests', under their own name)
                if (!path.startsWith("dev/remora/") && !path.startsWith("net/bytebuddy/")) {
                    return new Resolution.Illegal(name);
                }
                byte[] bytes = BridgeInjector.readOrNull(agentLoader, path);
                if (bytes == null) {
                    bytes = byteBuddyClass(path); // shaded: in the nested jar, with this class
                }
                return bytes == null ? new Resolution.Illegal(name)
                        : new Resolution.Explicit(BridgeInjector.remap(bytes));
            }

            @Override
            public void close() {
            }
        };
    }

    private static byte[] byteBuddyClass(String path) throws IOException {
        try (InputStream in = AdviceWeaver.class.getClassLoader().getResourceAsStream(path + ".class")) {
            return in == null ? null : in.readAllBytes();
        }
    }

    @Override
    public byte[] weave(String typeName, byte[] classFile, List<HookPoint> points) {
        ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(typeName, classFile),
                ClassFileLocator.ForClassLoader.ofBootLoader());
        TypePool pool = new TypePool.Default.WithLazyResolution(TypePool.CacheProvider.Simple.withObjectType(),
                locator, TypePool.Default.ReaderMode.FAST);
        DynamicType.Builder<?> builder = byteBuddy.decorate(pool.describe(typeName).resolve(), locator);
        for (HookPoint h : points) {
            builder = builder.visit(Advice.to(advicePool.describe(h.adviceName()).resolve(), advice)
                    .withExceptionHandler(handler)
                    .on(new Matches(h)));
        }
        return builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes();
    }

    /** The method of one hook point, by name and parameter descriptor (as the premain check found it). */
    private static final class Matches extends ElementMatcher.Junction.AbstractBase<MethodDescription> {
        private final HookPoint point;

        Matches(HookPoint point) {
            this.point = point;
        }

        @Override
        public boolean matches(MethodDescription m) {
            return m.isMethod() && point.matches(m.getInternalName(), m.getDescriptor());
        }
    }
}
