package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The command line read for the native-access decision is the one the JDK's process handle reports. */
class CommandLineTest {
    @Test
    void procSelfCmdlineGivesWhatTheProcessHandleGives() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/cmdline")), "Linux only");
        String[] expected = ProcessHandle.current().info().arguments().orElse(null);
        assumeTrue(expected != null, "the process handle tells no arguments here");
        assertArrayEquals(expected, Installer.commandLine());
    }
}
