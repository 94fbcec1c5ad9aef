package dev.remora.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm.Jdk;
import dev.remora.it.oos.OosApp;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * remora.oos=fast with real JVMs on JDK 17 and 25: an ordinary application ({@link OosApp}) that keeps a graph in a
 * file with {@code new ObjectOutputStream} writes Remora's format behind header ACED524E and reads back what plain
 * Java reads back; a JVM without Remora, or with remora.oos=jdk, fails loudly on such a file; a fast JVM reads files
 * in the JDK's format; the application's stream subclasses, its filters and RMI keep working.
 */
class OosIT {
    private static final byte[] FAST_HEADER = {(byte) 0xAC, (byte) 0xED, 0x52, 0x4E};
    private static final byte[] JDK_HEADER = {(byte) 0xAC, (byte) 0xED, 0x00, 0x05};
    private static final String CORRUPT = "ERROR java.io.StreamCorruptedException: invalid stream header: ACED524E";

    @TempDir
    Path dir;

    private static List<String> fast(String... more) {
        List<String> l = new ArrayList<>();
        l.add(Jvm.javaagent(null));
        l.add("-Dremora.oos=fast");
        l.add("-Dremora.stats=true");
        l.addAll(Arrays.asList(more));
        return l;
    }

    /** Runs OosApp to its end; {@code exit} is the status it must end with. */
    private static Jvm app(Jdk jdk, List<String> opts, int exit, String mode, Path file) throws Exception {
        Jvm j = Jvm.start(jdk, opts, OosApp.class.getName(), mode, file.toString());
        try {
            assertEquals(exit, j.waitFor(120), j::describe);
            return j;
        } finally {
            j.close();
        }
    }

    private static byte[] head(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(4);
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void fastFileReadsBackAsPlainJavaDoesAndOnlyWithRemora(Jdk jdk) throws Exception {
        Path plain = dir.resolve("plain.bin");
        List<String> expected = app(jdk, List.of(), 0, "write", plain).stdoutLines();
        assertEquals(expected, app(jdk, List.of(), 0, "read", plain).stdoutLines(), "plain Java round trip");
        assertArrayEquals(JDK_HEADER, head(plain));

        Path fast = dir.resolve("fast.bin");
        Jvm w = app(jdk, fast(), 0, "write", fast);
        assertEquals(expected, w.stdoutLines());
        assertArrayEquals(FAST_HEADER, head(fast), "Remora's header");
        assertEquals(1, w.stat("fast_streams"), w::describe);
        assertEquals(0, w.stat("advice_errors"), w::describe);
        assertTrue(Files.size(fast) < Files.size(plain), () -> "fast " + fast.toFile().length() + " bytes, plain "
                + plain.toFile().length());

        Jvm r = app(jdk, fast(), 0, "read", fast);
        assertEquals(expected, r.stdoutLines(), r::describe);
        assertEquals(1, r.stat("fast_streams"), r::describe);
        assertEquals(0, r.stat("advice_errors"), r::describe);

        assertEquals(List.of(CORRUPT), app(jdk, List.of(), 3, "read", fast).stdoutLines(), "a JVM without Remora");
        assertEquals(List.of(CORRUPT), app(jdk, List.of(Jvm.javaagent(null), "-Dremora.oos=jdk"), 3, "read", fast)
                .stdoutLines(), "remora.oos=jdk");

        Jvm both = app(jdk, fast(), 0, "read", plain);
        assertEquals(expected, both.stdoutLines(), () -> "a fast JVM reads the JDK's format\n" + both.describe());
        assertEquals(0, both.stat("fast_streams"), both::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void filtersApplyToFastStreams(Jdk jdk) throws Exception {
        Path fast = dir.resolve("fast.bin");
        app(jdk, fast(), 0, "write", fast);
        String rejected = "ERROR java.io.InvalidClassException: filter status: REJECTED";
        assertEquals(List.of(rejected), app(jdk, fast(), 3, "read-filtered", fast).stdoutLines(),
                "setObjectInputFilter on the application's stream");
        assertEquals(List.of(rejected), app(jdk, fast("-Djdk.serialFilter=!" + OosApp.class.getName() + "$Custom"),
                3, "read", fast).stdoutLines(), "jdk.serialFilter");
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void applicationSubclassesKeepTheJdkFormatAndTheirOverrides(Jdk jdk) throws Exception {
        Path sub = dir.resolve("sub.bin");
        assertEquals(List.of("subclass wrote"), app(jdk, fast(), 0, "write-sub", sub).stdoutLines());
        assertArrayEquals(JDK_HEADER, head(sub), "a subclass of ObjectOutputStream writes the JDK's format");
        String read = "read [public, redacted] resolveClass called true";
        assertEquals(List.of(read), app(jdk, List.of(), 0, "read-sub", sub).stdoutLines(), "replaceObject ran");
        assertEquals(List.of(read), app(jdk, fast(), 0, "read-sub", sub).stdoutLines(), "resolveClass ran");

        // a subclass of ObjectInputStream reads Remora's format too, with its overrides honoured: the same output
        // (values, resolveObject's replacement, the class names its resolveClass was asked for) as the JDK's reader
        // gives on the same graph in the JDK's format
        Path plain = dir.resolve("plain.bin");
        app(jdk, List.of(), 0, "write", plain);
        Path fast = dir.resolve("fast.bin");
        app(jdk, fast(), 0, "write", fast);
        assertArrayEquals(FAST_HEADER, head(fast));
        List<String> expected = app(jdk, List.of(), 0, "read-sub-all", plain).stdoutLines();
        assertTrue(expected.contains("last resolved last"), expected::toString);
        assertEquals(expected, app(jdk, fast(), 0, "read-sub-all", fast).stdoutLines());
        assertEquals(expected, app(jdk, fast(), 0, "read-sub-all", plain).stdoutLines());
        assertEquals(List.of(CORRUPT), app(jdk, List.of(), 3, "read-sub", fast).stdoutLines(),
                "without Remora, no reader reads Remora's format");
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void brokenHooksLeaveTheJdkFormat(Jdk jdk) throws Exception {
        Path file = dir.resolve("faulty.bin");
        List<String> expected = app(jdk, List.of(), 0, "write", dir.resolve("plain.bin")).stdoutLines();
        Jvm w = app(jdk, fast("-Dremora.debug.faults=advice"), 0, "write", file);
        assertEquals(expected, w.stdoutLines());
        assertArrayEquals(JDK_HEADER, head(file), "the header hook failed before writing: JDK format");
        assertTrue(w.stat("advice_errors") > 0, w::describe);
        assertEquals(0, w.stat("fast_streams"), w::describe);
        assertEquals(expected, app(jdk, List.of(), 0, "read", file).stdoutLines(), "plain Java reads it");
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void rmiWorksWithOosFast(Jdk jdk) throws Exception {
        List<String> expected = AgentIT.vanilla(jdk);
        AgentIT.Run r = AgentIT.run(jdk, AgentIT.agent("-Dremora.oos=fast"), AgentIT.agent("-Dremora.oos=fast"));
        assertEquals(expected, r.clientOut);
        assertEquals(AgentIT.expectedCalls(r.clientOut), r.client.stat("calls_remora") + r.client.stat("calls_jrmp"),
                r.client::describe);
        assertEquals(0, r.client.stat("advice_errors"), r.client::describe);
        assertEquals(0, r.server.stat("advice_errors"), r.server::describe);
        assertEquals(0, r.client.stat("fast_streams"), "RMI's streams are subclasses: left to the JDK");
        assertEquals(expected, AgentIT.run(jdk, AgentIT.agent("-Dremora.oos=fast"), List.of()).clientOut,
                "a vanilla client against a fast server");
    }
}
