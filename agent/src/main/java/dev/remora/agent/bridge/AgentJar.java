package dev.remora.agent.bridge;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.CodeSource;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Reads entries of remora-agent.jar itself, for the agent's own start (the bridge's and the advice classes' bytes,
 * the preload list). A class loader's {@code getResourceAsStream} asks the boot and platform loaders first, and they
 * look a name outside their packages up in every JDK module they define: about 60 runtime-image lookups, each
 * hashing the name, for each of the agent's reads. When the agent's classes come from a directory (its own unit
 * tests) the class loader reads them as before.
 */
public final class AgentJar {
    private static final Object NOT_A_JAR = new Object();
    private static Object jar; // a JarFile, NOT_A_JAR, or null until the first read

    private AgentJar() {
    }

    /** The bytes of {@code name} (e.g. {@code dev/remora/bootstrap/RemoraBridge.class}), or null when missing. */
    public static byte[] readOrNull(ClassLoader loader, String name) throws IOException {
        JarFile j = jar();
        if (j == null) {
            try (InputStream in = loader.getResourceAsStream(name)) {
                return in == null ? null : in.readAllBytes();
            }
        }
        ZipEntry e = j.getEntry(name);
        if (e == null) {
            return null;
        }
        try (InputStream in = j.getInputStream(e)) {
            return in.readAllBytes();
        }
    }

    /** The jar's entry {@code name}, or null when missing or when the agent's classes do not come from a jar. */
    public static ZipEntry entryOrNull(String name) {
        JarFile j = jar();
        return j == null ? null : j.getEntry(name);
    }

    /** The contents of {@code entry}, one of {@link #entryOrNull}'s. */
    public static InputStream open(ZipEntry entry) throws IOException {
        JarFile j = jar();
        if (j == null) {
            throw new IOException("the agent's classes do not come from a jar");
        }
        return j.getInputStream(entry);
    }

    /** Whether reads go to the jar directly (false: through the class loader). */
    static boolean direct() {
        return jar() != null;
    }

    private static synchronized JarFile jar() {
        if (jar == null) {
            jar = open();
        }
        return jar == NOT_A_JAR ? null : (JarFile) jar;
    }

    /** Kept open for the JVM's life, as the class loader keeps its own; both share the JDK's one copy of the index. */
    private static Object open() {
        try {
            CodeSource cs = AgentJar.class.getProtectionDomain().getCodeSource();
            URL u = cs == null ? null : cs.getLocation();
            if (u != null && "file".equals(u.getProtocol()) && u.getPath().endsWith(".jar")) {
                return new JarFile(new File(u.toURI()), false);
            }
        } catch (IOException | URISyntaxException | RuntimeException e) {
            // not readable as a jar here: the class loader reads, as it would have anyway
        }
        return NOT_A_JAR;
    }
}
