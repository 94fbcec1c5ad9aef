package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConfigTest {

    @Test
    void defaultsAreValidAndComplete() {
        RemoraConfig c = RemoraConfig.defaults();
        assertEquals(List.of(), c.problems());
        for (Property p : Property.values()) {
            assertEquals(null, p.check(p.defaultValue()), p.key() + " default must be allowed");
            assertTrue(p.key().startsWith("remora."), p.key());
            assertEquals(p.defaultValue(), c.get(p));
        }
    }

    @Test
    void aBadValueNamesThePropertyTheValueAndWhatIsAllowed() {
        Properties sys = new Properties();
        sys.setProperty("remora.typecache", "sometimes");
        RemoraConfig c = RemoraConfig.from(sys, null);
        assertEquals(List.of("remora.typecache=sometimes: 'sometimes' is not one of connection, call"), c.problems());
        assertEquals("connection", c.get(Property.TYPECACHE), "the default stays in force");
    }

    @Test
    void oosFastIsBuiltAndOffByDefault() {
        assertEquals("jdk", RemoraConfig.from(Map.of(), List.of()).get(Property.OOS));
        RemoraConfig c = RemoraConfig.from(Map.of("remora.oos", "fast"), List.of());
        assertEquals(List.of(), c.problems());
        assertEquals("fast", c.get(Property.OOS));
    }

    @Test
    void unknownPropertiesAreProblemsThatListTheKnownOnes() {
        RemoraConfig c = RemoraConfig.from(Map.of("remora.transprot", "jrmp"), List.of());
        assertTrue(c.problems().get(0).startsWith("unknown property remora.transprot; known: remora.enabled"),
                c.problems().get(0));
    }

    @Test
    void integersAreRangeChecked() {
        assertEquals(List.of(), RemoraConfig.from(Map.of("remora.fabric.spin", "0"), List.of()).problems());
        assertTrue(RemoraConfig.from(Map.of("remora.fabric.spin", "-1"), List.of()).problems().get(0)
                .contains("outside an integer >= 0"));
        assertTrue(RemoraConfig.from(Map.of("remora.fabric.spin", "lots"), List.of()).problems().get(0)
                .contains("not a whole number"));
    }

    @Test
    void agentArgumentsWinOverSystemPropertiesAndMayOmitThePrefix() {
        Properties sys = new Properties();
        sys.setProperty("remora.stats", "false");
        RemoraConfig c = RemoraConfig.from(sys, "stats=true, remora.log=debug");
        assertEquals(List.of(), c.problems());
        assertTrue(c.flag(Property.STATS));
        assertEquals("debug", c.get(Property.LOG));
        assertTrue(RemoraConfig.from(new Properties(), "stats").problems().get(0).contains("not key=value"));
    }

    @Test
    void validateAnswersTheCompareScript() {
        assertEquals(0, SelfCheck.validate(new String[] {"--validate", "remora.transport=jrmp"}));
        assertEquals(1, SelfCheck.validate(new String[] {"--validate", "remora.transport=nope"}));
        assertEquals(1, SelfCheck.validate(new String[] {"--validate", "transport"}));
    }
}
