package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What SIGKILLed JVMs leave in /dev/shm is removed by the next Remora JVM, and nothing else: only names of
 * libfabric's and Remora's forms, of this user, whose process is gone.
 */
class DeadRegionsTest {
    @TempDir
    Path dir;

    @Test
    void onlyRegionsOfDeadProcessesInTheKnownFormsGo() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long dead = p.pid();
        long live = ProcessHandle.current().pid();
        String[] gone = {dead + ":0:0", dead + ":1000:17", dead + ":remora:3"};
        String[] kept = {live + ":0:0", live + ":remora:1", dead + ":abc:1", dead + ":1:x", "x" + dead + ":1:1",
            dead + ":1", dead + ":1:1:1", "sem.foo", "remora"};
        for (String n : gone) {
            Files.write(dir.resolve(n), new byte[] {1});
        }
        for (String n : kept) {
            Files.write(dir.resolve(n), new byte[] {1});
        }
        List<String> removed = Fabric.removeRegionsOfDeadProcesses(dir);
        assertEquals(new TreeSet<>(List.of(gone)), new TreeSet<>(removed));
        Set<String> left = new TreeSet<>();
        try (var s = Files.list(dir)) {
            s.forEach(f -> left.add(f.getFileName().toString()));
        }
        assertEquals(new TreeSet<>(List.of(kept)), left);
    }

    @Test
    void namesParse() {
        assertEquals(123, Fabric.regionPid("123:0:4"));
        assertEquals(123, Fabric.regionPid("123:remora:0"));
        assertEquals(-1, Fabric.regionPid("123:remora"));
        assertEquals(-1, Fabric.regionPid(":1:1"));
        assertEquals(-1, Fabric.regionPid("99999999999:1:1"));
        assertTrue(Fabric.regionPid("1:1:1") > 0);
        assertFalse(Fabric.regionPid("1:-1:1") > 0);
    }
}
