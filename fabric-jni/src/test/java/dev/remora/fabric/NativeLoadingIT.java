package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Native loading in fresh JVMs: broken setups give one clear cause, never a crash; JDK 25 warnings. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeLoadingIT {
    private static final String INFO = "dev.remora.fabric.tools.FabricInfo";
    private static final Path JDK25 = Path.of(System.getProperty("remora.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    @Test
    void extractsIntoTheWorkFolderAndLeavesNothingBehind(@TempDir Path work) throws Exception {
        FabricTestSupport.assumeProvider("shm");
        ChildJvm.Result r = ChildJvm.run(ChildJvm.javaCommand(List.of(), INFO, work.toString()), 60);
        assertEquals(0, r.status, r::toString);
        assertTrue(r.output.contains("providers: "), r::toString);
        try (var files = Files.list(work)) {
            assertEquals(0, files.count(), "the extracted library must be deleted after loading");
        }
    }

    @Test
    void anUnusableWorkFolderIsExplained(@TempDir Path tmp) throws Exception {
        FabricTestSupport.assumeProvider("shm");
        Path notADir = Files.writeString(tmp.resolve("file"), "x");
        ChildJvm.Result r = ChildJvm.run(ChildJvm.javaCommand(List.of(), INFO, notADir.toString()), 60);
        assertEquals(1, r.status, r::toString);
        assertTrue(r.output.contains("cause: cannot extract libremora_fabric"), r::toString);
        assertTrue(r.output.contains("-Dremora.transport=socket"), r::toString);
    }

    @Test
    void missingLibfabricIsOneClearCause() throws Exception {
        FabricTestSupport.assumeProvider("shm");
        ChildJvm.Result id = ChildJvm.run(List.of("id", "-u"), 10);
        assumeTrue(id.output.trim().equals("0"), "not root: cannot hide libfabric in a mount namespace, skipped");
        ChildJvm.Result ldconfig = ChildJvm.run(List.of("ldconfig", "-p"), 20);
        String libfabric = ldconfig.output.lines().filter(l -> l.trim().startsWith("libfabric.so.1 "))
                .map(l -> l.split("=>")[1].trim()).findFirst().orElse(null);
        assumeTrue(libfabric != null && libfabric.startsWith("/"), () -> "cannot locate libfabric: " + ldconfig);
        // a private mount namespace in which libfabric.so.1 is an empty file
        List<String> cmd = new ArrayList<>(List.of("unshare", "-m", "sh", "-c",
                "mount --bind /dev/null " + libfabric + " && exec \"$0\" \"$@\""));
        cmd.addAll(ChildJvm.javaCommand(List.of(), INFO));
        ChildJvm.Result r = ChildJvm.run(cmd, 60);
        assertEquals(1, r.status, r::toString);
        assertTrue(r.output.contains("cause: libfabric not found: install libfabric1 (Debian: apt-get install "
                + "libfabric1) or set -Dremora.transport=socket"), r::toString);
        assertFalse(r.output.contains("hs_err"), r::toString);
    }

    @Test
    void jdk25WarnsForAPlainClassPathLoadButNotAfterTheAgentEnablesNativeAccess(@TempDir Path tmp) throws Exception {
        FabricTestSupport.assumeProvider("shm");
        Path java = JDK25.resolve("bin/java");
        assumeTrue(Files.isExecutable(java), "JDK 25 not found at " + JDK25 + ", skipped");
        Path agent = tmp.resolve("agent.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().putValue("Premain-Class", NativeAccessAgent.class.getName());
        try (OutputStream out = Files.newOutputStream(agent); JarOutputStream jar = new JarOutputStream(out, mf)) {
            jar.flush();
        }
        String cp = ChildJvm.classPath();
        ChildJvm.Result plain = ChildJvm.run(List.of(java.toString(), "-javaagent:" + agent + "=plain", "-cp", cp,
                INFO), 60);
        ChildJvm.Result enabled = ChildJvm.run(List.of(java.toString(), "-javaagent:" + agent, "-cp", cp, INFO), 60);
        ChildJvm.Result flag = ChildJvm.run(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp", cp,
                INFO), 60);
        assertEquals(0, plain.status, plain::toString);
        assertTrue(plain.output.contains("WARNING: A restricted method in java.lang.System has been called"),
                () -> "JDK 25 no longer warns? " + plain);
        assertEquals(0, enabled.status, enabled::toString);
        assertTrue(enabled.output.contains("agent: fabric available = true"), enabled::toString);
        assertFalse(enabled.output.contains("WARNING"), enabled::toString);
        assertEquals(0, flag.status, flag::toString);
        assertFalse(flag.output.contains("WARNING"), flag::toString);
    }

    @Test
    void theJvmKeepsItsSignalHandlersAfterLibfabricIsLoaded() throws Exception {
        FabricTestSupport.assumeProvider("shm");
        ChildJvm.Result r = ChildJvm.run(ChildJvm.javaCommand(List.of(), SignalSurvivalMain.class.getName()), 60);
        assertEquals(0, r.status, r::toString);
        assertTrue(r.output.contains("survived 4883 implicit null checks"), r::toString);
    }
}
