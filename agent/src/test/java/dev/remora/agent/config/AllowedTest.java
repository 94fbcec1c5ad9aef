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

    @Test
    void methodListsSplitAtCommasOutsideParentheses() {
        assertEquals(List.of("a.B#c", "a.B#d(int,java.lang.String)", "a.E#f()"),
                Property.methodList(" a.B#c, a.B#d(int,java.lang.String) ,, a.E#f() "));
        assertEquals(List.of(), Property.methodList(""));
    }

    @Test
    void aMalformedMethodIsRefusedWithTheEntry() {
        assertNull(Property.ASYNC.check(""));
        assertNull(Property.ASYNC.check("com.example.Log#append,com.example.Sim#step(int, byte[])"));
        assertEquals("'Log' is not pkg.Class#method or pkg.Class#method(type,...)",
                Property.ASYNC.check("a.B#c,Log"));
        assertEquals("'a.B#c(int' is not pkg.Class#method or pkg.Class#method(type,...)",
                Property.FUTURE.check("a.B#c(int"));
        assertEquals("'a.B#(int)' is not pkg.Class#method or pkg.Class#method(type,...)",
                Property.FUTURE.check("a.B#(int)"));
        assertEquals("'#c' is not pkg.Class#method or pkg.Class#method(type,...)", Property.ASYNC.check("#c"));
    }
}
