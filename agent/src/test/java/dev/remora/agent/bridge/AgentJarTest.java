package dev.remora.agent.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentJarTest {

    /**
     * Loaded from a jar, AgentJar reads that jar's entries itself: an entry the jar lacks is missing even when the
     * loader it is given could find it elsewhere.
     */
    @Test
    void readsItsOwnJarNotTheLoaders(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("agent.jar");
        byte[] list = "dev.remora.Some\n".getBytes(StandardCharsets.UTF_8);
        try (OutputStream f = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(f)) {
            for (String c : new String[] {"AgentJar", "AgentJar$1"}) {
                try (InputStream in = AgentJar.class.getResourceAsStream(c + ".class")) {
                    if (in == null) {
                        continue; // no inner class: fine
                    }
                    out.putNextEntry(new JarEntry("dev/remora/agent/bridge/" + c + ".class"));
                    out.write(in.readAllBytes());
                }
            }
            out.putNextEntry(new JarEntry("META-INF/remora/list.txt"));
            out.write(list);
        }
        try (URLClassLoader fromJar = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Class<?> c = fromJar.loadClass(AgentJar.class.getName());
            Method read = c.getMethod("readOrNull", ClassLoader.class, String.class);
            Method direct = c.getDeclaredMethod("direct");
            direct.setAccessible(true);
            assertEquals(true, direct.invoke(null));
            ClassLoader ours = getClass().getClassLoader(); // finds this test class; the jar does not hold it
            assertArrayEquals(list, (byte[]) read.invoke(null, ours, "META-INF/remora/list.txt"));
            String test = AgentJarTest.class.getName().replace('.', '/') + ".class";
            assertNotNull(ours.getResource(test));
            assertNull(read.invoke(null, ours, test), "read from the jar, not through the loader");
        }
    }

    /** Loaded from a directory (these tests), AgentJar reads through the class loader. */
    @Test
    void fromADirectoryReadsThroughTheLoader() throws Exception {
        assertFalse(AgentJar.direct());
        byte[] viaJar = AgentJar.readOrNull(getClass().getClassLoader(), BridgeInjector.SOURCE + ".class");
        assertNotNull(viaJar);
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(BridgeInjector.SOURCE + ".class")) {
            assertArrayEquals(in.readAllBytes(), viaJar);
        }
        assertNull(AgentJar.readOrNull(getClass().getClassLoader(), "dev/remora/no/Such.class"));
    }
}
