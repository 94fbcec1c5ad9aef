package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class OptionsTest {

    private static Options sample() {
        return new Options().option("port", "1099", "registry port").option("sizes", "50,5000", "lengths")
                .flag("verify", "check");
    }

    @Test
    void defaultsSpaceAndEqualsForms() {
        Options o = sample().parse(new String[] {"--port", "4000", "--verify"});
        assertEquals(4000, o.getInt("port", 1, 65535));
        assertTrue(o.flag("verify"));
        assertArrayEquals(new int[] {50, 5000}, o.getInts("sizes"));
        Options p = sample().parse(new String[] {"--port=5000", "--sizes=1,2,3"});
        assertEquals(5000, p.getInt("port", 1, 65535));
        assertFalse(p.flag("verify"));
        assertArrayEquals(new int[] {1, 2, 3}, p.getInts("sizes"));
        assertTrue(p.isSet("port"));
    }

    @Test
    void errorsNameTheOptionAndWhatItAccepts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> sample().parse(new String[] {"--prot", "1"}));
        assertTrue(e.getMessage().contains("--prot") && e.getMessage().contains("--port"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> sample().parse(new String[] {"--port"}));
        assertTrue(e.getMessage().contains("needs a value"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> sample().parse(new String[] {"--port", "x"}).getInt("port", 1, 65535));
        assertTrue(e.getMessage().contains("1..65535") && e.getMessage().contains("'x'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> sample().parse(new String[] {"--port", "70000"}).getInt("port", 1, 65535));
        assertTrue(e.getMessage().contains("70000"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> sample().parse(new String[] {"--sizes", "5,-1"})
                .getInts("sizes"));
        assertThrows(IllegalArgumentException.class, () -> sample().parse(new String[] {"stray"}));
        assertThrows(IllegalArgumentException.class, () -> sample().parse(new String[] {"--verify=yes"}));
    }

    @Test
    void kernelListsParseByIdAndAll() {
        assertEquals(List.of(Kernel.PING, Kernel.STAR), Kernel.parseList("ping, STAR,ping"));
        assertEquals(Kernel.values().length, Kernel.parseList("all").size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Kernel.parseList("pong"));
        assertTrue(e.getMessage().contains("raw_tcp"), e.getMessage());
    }

    @Test
    void clientRejectsBadUsageWithExitCode2() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code = BenchClient.run(new String[] {"--kernels", "nope"}, System.out, new java.io.PrintStream(err));
        assertEquals(2, code);
        assertTrue(err.toString().contains("unknown kernel 'nope'"), err.toString());
        err.reset();
        code = BenchClient.run(new String[] {"--objects", "double[5]"}, System.out, new java.io.PrintStream(err));
        assertEquals(2, code);
        assertTrue(err.toString().contains("unknown object 'double[5]'"), err.toString());
    }
}
