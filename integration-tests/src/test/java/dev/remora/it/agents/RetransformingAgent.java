package dev.remora.it.agents;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Another agent, as an APM or profiler attaches one: it retransforms the classes named in its argument (comma
 * separated) with a retransformation-capable transformer that changes nothing, and prints for each class whether the
 * bytes the JVM handed it hold Remora's hooks ({@code retransformed <class> hooks=<true|false>}), then
 * {@code RETRANSFORMED}. Packed into a jar by the test that attaches it.
 */
public final class RetransformingAgent implements ClassFileTransformer {
    private static final byte[] BRIDGE = "java/io/RemoraBridge".getBytes(StandardCharsets.UTF_8);

    public static void agentmain(String args, Instrumentation inst) throws Exception {
        List<String> names = Arrays.asList(args.split(","));
        List<Class<?>> targets = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (names.contains(c.getName())) {
                targets.add(c);
            }
        }
        RetransformingAgent t = new RetransformingAgent();
        inst.addTransformer(t, true);
        try {
            inst.retransformClasses(targets.toArray(new Class<?>[0]));
        } finally {
            inst.removeTransformer(t);
        }
        System.out.println("RETRANSFORMED " + targets.size());
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] classFile) {
        if (redefined != null) {
            System.out.println("retransformed " + redefined.getName() + " hooks=" + contains(classFile, BRIDGE));
        }
        return null;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
