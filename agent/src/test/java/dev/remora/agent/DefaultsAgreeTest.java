package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import dev.remora.agent.stats.Stats;
import dev.remora.fabric.FabricOptions;
import dev.remora.rmi.RouterOptions;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent's property defaults are the modules' own defaults: a module used without the agent (the fabric tools,
 * tests) behaves as the agent's default configuration does (FabricOptions said 50 us of spin while
 * remora.fabric.spin said 20 us).
 */
class DefaultsAgreeTest {
    @Test
    void fabricDefaultsAreThePropertiesDefaults() {
        FabricOptions f = FabricOptions.defaults();
        assertEquals(Long.parseLong(Property.FABRIC_SPIN.defaultValue()), f.spinNanos());
        assertEquals(Long.parseLong(Property.FABRIC_SPIN_MAX.defaultValue()), f.spinMaxNanos());
        assertEquals(Long.parseLong(Property.FABRIC_RING.defaultValue()), f.sendRingBytes());
    }

    /**
     * Every setting of the router the agent makes from default properties is RouterOptions' own default, field by
     * field (its fabric options and declarations included; the listener is the agent's own by design).
     */
    @Test
    void routerDefaultsAreThePropertiesDefaults() throws Exception {
        RouterOptions fromProperties = Installer.routerOptions(RemoraConfig.defaults(), new Stats());
        List<String> differences = new ArrayList<>();
        int compared = compare("RouterOptions", RouterOptions.defaults(), fromProperties, differences);
        assertEquals(List.of(), differences);
        assertTrue(compared >= 30, "compared only " + compared + " values");
    }

    /** Fails on a changed default: the comparison is not vacuous. */
    @Test
    void aChangedDefaultIsFound() throws Exception {
        List<String> differences = new ArrayList<>();
        compare("RouterOptions", RouterOptions.defaults(),
                RouterOptions.defaults().fabricUpgrade(true, false, 2048), differences);
        assertEquals(List.of("RouterOptions.fabricUpgradeAfter: 65536 against 2048"), differences);
    }

    private static int compare(String path, Object a, Object b, List<String> out) throws IllegalAccessException {
        if (a == null || b == null || a.getClass().isEnum() || a.getClass().getName().startsWith("java.")) {
            if (a == null ? b != null : !a.equals(b)) {
                out.add(path + ": " + a + " against " + b);
            }
            return 1;
        }
        if (a.getClass() != b.getClass()) {
            out.add(path + ": " + a.getClass().getName() + " against " + b.getClass().getName());
            return 1;
        }
        if (a.getClass().isArray()) {
            if (Array.getLength(a) != Array.getLength(b)) {
                out.add(path + ": length " + Array.getLength(a) + " against " + Array.getLength(b));
                return 1;
            }
            int n = 1;
            for (int i = 0; i < Array.getLength(a); i++) {
                n += compare(path + "[" + i + "]", Array.get(a, i), Array.get(b, i), out);
            }
            return n;
        }
        int n = 0;
        for (Class<?> c = a.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("listener")) {
                    continue;
                }
                f.setAccessible(true);
                n += compare(path + "." + f.getName(), f.get(a), f.get(b), out);
            }
        }
        return n;
    }
}
