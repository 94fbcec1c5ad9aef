package dev.remora.agent;

import dev.remora.agent.hooks.HookPoint;
import java.util.List;

/**
 * What the {@link Weaver} asks of Byte Buddy: implemented by {@code AdviceWeaver}, which the shaded jar keeps with
 * Byte Buddy in a nested jar and a class loader of their own ({@link WeaverLoader}), hence an interface here.
 */
public interface AdviceWeaving {
    /** {@code classFile} of the boot class {@code typeName} with the advice of {@code points} inlined. */
    byte[] weave(String typeName, byte[] classFile, List<HookPoint> points);
}
