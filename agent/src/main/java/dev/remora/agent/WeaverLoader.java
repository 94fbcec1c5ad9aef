package dev.remora.agent;

import dev.remora.agent.bridge.AgentJar;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;

/**
 * Makes the {@link AdviceWeaving} that Byte Buddy does, at a JVM's first class that is not in the woven-class cache.
 *
 * <p>The shaded agent jar keeps Byte Buddy, and {@code AdviceWeaver} with it, in one stored entry, {@value #NESTED}
 * (the build's {@code agent/src/build/NestByteBuddy.java}): they were 3,087 of the jar's 3,415 entries, and every JVM
 * started with the agent reads and hashes the whole directory of its jar, while a JVM whose hooked classes come from
 * the cache loads none of them (hello world: 15-35 ms less CPU here). Here the nested jar is copied to a file of
 * its own in the temporary directory (readable by this user only, deleted at exit; a JVM killed before leaves it
 * behind) and loaded by a class loader of its own, whose parent is the agent's: Byte Buddy finds ASM and the agent's
 * classes there. A build without shading (the agent's unit tests) loads {@code AdviceWeaver} from the agent's loader.
 */
final class WeaverLoader {
    static final String NESTED = "META-INF/remora/byte-buddy.jar";
    private static final String WEAVER = "dev.remora.agent.AdviceWeaver";

    private WeaverLoader() {
    }

    /** Byte Buddy's weaver, for the agent classes of {@code agentLoader}. */
    static AdviceWeaving load(ClassLoader agentLoader) throws IOException {
        ClassLoader loader = agentLoader;
        ZipEntry nested = AgentJar.entryOrNull(NESTED);
        if (nested != null) {
            Path jar;
            try {
                jar = Files.createTempFile("remora-byte-buddy-", ".jar"); // rw------- on POSIX file systems
                jar.toFile().deleteOnExit();
                try (InputStream in = AgentJar.open(nested)) {
                    Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException | RuntimeException e) {
                throw new IOException("cannot copy Byte Buddy to the temporary directory "
                        + System.getProperty("java.io.tmpdir") + " to weave (" + e
                        + "); give the JVM a writable -Djava.io.tmpdir", e);
            }
            Log.debug("Byte Buddy's classes extracted to " + jar);
            loader = new URLClassLoader("remora-byte-buddy", new URL[] {jar.toUri().toURL()}, agentLoader);
        }
        try {
            return (AdviceWeaving) Class.forName(WEAVER, true, loader).getConstructor(ClassLoader.class)
                    .newInstance(agentLoader);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IOException("cannot load Byte Buddy's weaver from remora-agent.jar ("
                    + (nested != null ? NESTED : "its classes") + "); the jar is damaged, rebuild it: " + e, e);
        }
    }

    /**
     * What identifies the nested jar's contents for the woven-class cache (its size and CRC, from the agent jar's
     * directory: nothing is read), or null when the agent has no nested jar.
     */
    static byte[] nestedIdentity() {
        ZipEntry nested = AgentJar.entryOrNull(NESTED);
        return nested == null ? null
                : (NESTED + ' ' + nested.getSize() + ' ' + Long.toHexString(nested.getCrc()) + '\n')
                        .getBytes(StandardCharsets.UTF_8);
    }
}
