package dev.remora.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * remora.preload's list (made by scripts/lib/first-calls-classes.sh) against the agent jar it ships in: every
 * Remora class it names is in the jar, every JDK class is in this JDK; and an RMI JVM with the agent loads them.
 * A rename that the list did not follow fails here, not silently in every JVM.
 */
class PreloadListIT {

    private static List<String> listed(ZipFile jar) throws Exception {
        ZipEntry e = jar.getEntry("META-INF/remora/first-calls.classes");
        assertNotNull(e, "the agent jar has no preload list");
        List<String> names = new ArrayList<>();
        try (InputStream in = jar.getInputStream(e);
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    names.add(line.trim());
                }
            }
        }
        return names;
    }

    @Test
    void everyListedClassExists() throws Exception {
        try (ZipFile jar = new ZipFile(Jvm.agentJar().toFile())) {
            List<String> names = listed(jar);
            assertTrue(names.size() > 100, "only " + names.size() + " classes listed");
            List<String> missing = new ArrayList<>();
            for (String n : names) {
                boolean found;
                if (n.startsWith("dev.remora.")) {
                    found = jar.getEntry(n.replace('.', '/') + ".class") != null;
                } else {
                    try {
                        Class.forName(n, false, ClassLoader.getPlatformClassLoader());
                        found = true;
                    } catch (ClassNotFoundException e) {
                        found = false;
                    }
                }
                if (!found) {
                    missing.add(n);
                }
            }
            assertEquals(List.of(), missing, "listed but not there: run scripts/lib/first-calls-classes.sh");
        }
    }

    @Test
    void anRmiJvmPreloadsThemOnce() throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(Jdk.JDK17, List.of(Jvm.javaagent(null), "-Dremora.log=debug"),
                CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            Pattern p = Pattern.compile("preloaded (\\d+) classes in \\d+ ms(.*)");
            long deadline = System.nanoTime() + 30_000_000_000L;
            Matcher m = p.matcher(server.stderr());
            boolean found = m.find();
            while (!found && System.nanoTime() < deadline) {
                Thread.sleep(50);
                m = p.matcher(server.stderr());
                found = m.find();
            }
            assertTrue(found, server::describe);
            assertTrue(Integer.parseInt(m.group(1)) > 100, server::describe);
            assertEquals("", m.group(2).trim(), "nothing listed is missing on JDK 17\n" + server.describe());
            server.stop();
            assertEquals(1, countOf(server.stderr(), "preloaded "), server::describe);
        }
    }

    private static int countOf(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
