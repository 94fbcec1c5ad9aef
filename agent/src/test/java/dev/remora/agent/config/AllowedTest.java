package dev.remora.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A value declared but not built yet is refused with a message that says so (no property has one today). */
class AllowedTest {

    @Test
    void aValueNotBuiltYetSaysSo() {
        Property.Allowed.Choice c = new Property.Allowed.Choice(List.of("jdk")).notYet("fast");
        assertNull(c.check("jdk"));
        assertEquals("'fast' is not built yet in this release; allowed now: jdk", c.check("fast"));
        assertEquals("'slow' is not one of jdk", c.check("slow"));
        assertEquals("jdk (not built yet: fast)", c.describe());
    }
}
