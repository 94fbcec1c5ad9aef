package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remora.agent.config.Property;
import dev.remora.fabric.FabricOptions;
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
}
