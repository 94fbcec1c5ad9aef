package dev.remora.agent;

import dev.remora.agent.bridge.BridgeInjector;
import dev.remora.agent.hooks.HookPoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Weaves Remora's advice into a JDK class: from the {@link WovenCache} when an earlier JVM wove the same class file
 * with the same advice, else with Byte Buddy ({@link AdviceWeaving}, made at the first miss by {@link WeaverLoader}, so
 * a JVM whose hooked classes are all in the cache loads no Byte Buddy class: 150-400 ms less at its first RMI use on
 * this machine).
 */
final class Weaver {
    /** Byte Buddy's main class where it is not nested ({@link WeaverLoader}): shaded, and unshaded (unit tests). */
    private static final String[] BYTE_BUDDY = {"dev/remora/internal/bytebuddy/ByteBuddy", "net/bytebuddy/ByteBuddy"};
    /** Bump when what is woven changes in a way the inputs below do not show. */
    private static final String FORMAT = "remora-woven 1";

    private final ClassLoader agentLoader;
    private final WovenCache cache;
    /** Guarded by this; made at the first class the cache does not hold. */
    private AdviceWeaving byteBuddy;
    /** Guarded by this: why Byte Buddy could not be made, once tried (not tried again for each class). */
    private IOException byteBuddyFailed;
    /**
     * Guarded by this: the agent jar's class files read for {@link #inputs}, each once per JVM ({@link #MISSING} for
     * one the jar lacks). Every hooked class needs the bridge's and Byte Buddy's; read anew for each, they were a fifth
     * of the samples of a first RMI use in the interpreter (JFR, -Xint).
     */
    private final Map<String, byte[]> read = new HashMap<>();
    private static final byte[] MISSING = new byte[0];

    /** @param cache null: always weave */
    Weaver(ClassLoader agentLoader, WovenCache cache) {
        this.agentLoader = agentLoader;
        this.cache = cache;
    }

    /** {@code classFile} of the boot class {@code typeName} with the advice of {@code points} inlined. */
    byte[] weave(String typeName, byte[] classFile, List<HookPoint> points) throws IOException {
        byte[] inputs = cache == null ? null : inputs(points);
        if (inputs != null) {
            byte[] hit = cache.get(typeName, inputs, classFile);
            if (hit != null) {
                Log.debug("instrumenting " + typeName + " from the cache " + cache.dir());
                return hit;
            }
        }
        byte[] woven = byteBuddy().weave(typeName, classFile, points);
        if (inputs != null) {
            cache.put(typeName, inputs, classFile, woven);
        }
        return woven;
    }

    private synchronized AdviceWeaving byteBuddy() throws IOException {
        if (byteBuddyFailed != null) {
            throw byteBuddyFailed;
        }
        if (byteBuddy == null) {
            long t0 = System.nanoTime();
            try {
                byteBuddy = WeaverLoader.load(agentLoader);
            } catch (IOException e) {
                byteBuddyFailed = e;
                throw e;
            }
            Log.debug("Byte Buddy ready in " + Installer.ms(System.nanoTime() - t0) + " ms");
        }
        return byteBuddy;
    }

    /**
     * Everything besides the JDK's class file that decides the woven bytes: the hook points, the bytes of their
     * advice and of the bridge (as read from the agent jar, before renaming), and Byte Buddy's: the nested jar's size
     * and CRC (Byte Buddy's version and the weaver's code), or without one its main class. Null when one cannot be
     * read: no caching then.
     */
    private byte[] inputs(List<HookPoint> points) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(16384);
            out.write((FORMAT + '\n').getBytes(StandardCharsets.UTF_8));
            for (HookPoint h : points) {
                out.write((h.describe() + ' ' + h.adviceName() + '\n').getBytes(StandardCharsets.UTF_8));
                out.write(classFile(h.adviceName().replace('.', '/'), true));
            }
            out.write(classFile(BridgeInjector.SOURCE, true));
            byte[] bb = WeaverLoader.nestedIdentity();
            for (String name : BYTE_BUDDY) {
                bb = bb != null ? bb : classFile(name, false);
            }
            if (bb == null) {
                return null;
            }
            out.write(bb);
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            Log.debug("not using the woven-class cache: " + e);
            return null;
        }
    }

    /** The agent jar's class file at {@code path}, read once; null (or, if {@code required}, thrown) when missing. */
    private synchronized byte[] classFile(String path, boolean required) throws IOException {
        byte[] b = read.get(path);
        if (b == null) {
            b = BridgeInjector.readOrNull(agentLoader, path);
            read.put(path, b == null ? MISSING : b);
        }
        if (b == MISSING) {
            return required ? BridgeInjector.read(agentLoader, path) : null; // read throws, naming the damaged jar
        }
        return b;
    }
}
