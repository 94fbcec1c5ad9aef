package dev.remora.fabric;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * A test agent showing how Remora's agent can keep JDK 22+'s restricted-method warning away without user flags:
 * open java.lang to itself with redefineModule, then call Module.implAddEnableNativeAccessToAllUnnamed (an agent
 * jar's classes live in the unnamed module, whose native-access flag is the shared ALL-UNNAMED one).
 * Agent argument "plain" skips that step. Prints the availability for NativeLoadingIT to check.
 */
public final class NativeAccessAgent {
    private NativeAccessAgent() {}

    public static void premain(String args, Instrumentation inst) throws Exception {
        if (!"plain".equals(args)) {
            inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                    Map.of("java.lang", Set.of(NativeAccessAgent.class.getModule())), Set.of(), Map.of());
            try {
                Method m = Module.class.getDeclaredMethod("implAddEnableNativeAccessToAllUnnamed");
                m.setAccessible(true);
                m.invoke(null);
            } catch (NoSuchMethodException e) {
                // JDK 17-21: no native-access restrictions
            }
        }
        System.out.println("agent: fabric available = " + Fabric.isAvailable());
    }
}
