package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The other Remora JVMs' spinning waiters, counted through a shared file of slots (one JVM per slot here). */
class HostSpinnersTest {
    @TempDir
    Path dir;

    private static Process sleeper() throws Exception {
        return new ProcessBuilder("sleep", "60").start();
    }

    @Test
    void eachJvmSeesTheOthersCountsButNotItsOwn() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        Process other = sleeper();
        try {
            HostSpinners a = HostSpinners.open(dir, ProcessHandle.current().pid());
            HostSpinners b = HostSpinners.open(dir, other.pid());
            assertTrue(a.shared() && b.shared());
            a.add(2);
            b.add(1);
            assertEquals(1, a.others());
            assertEquals(2, b.others());
            a.add(-2);
            assertEquals(0, b.others());
        } finally {
            other.destroyForcibly().waitFor();
        }
    }

    @Test
    void thisJvmsCountOpensOnAThreadOfItsOwnAndAWaiterGivesBackWhereItCounted() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")) && Files.isDirectory(Path.of("/proc/self")), "Linux only");
        HostSpinners first = HostSpinners.jvm(); // counts nothing until the file is open, which it does not wait for
        long deadline = System.nanoTime() + 10_000_000_000L;
        HostSpinners opened = first;
        while (!opened.shared() && System.nanoTime() < deadline) {
            Thread.sleep(5);
            opened = HostSpinners.jvm();
        }
        assumeTrue(opened.shared(), "/dev/shm/remora-spinners-<uid> not usable here");
        Process other = sleeper(); // another JVM's view of the real file
        try {
            HostSpinners reader = HostSpinners.open(Path.of("/dev/shm"), other.pid());
            int before = reader.others();
            HostSpinners counted = CpuWatch.spinning();
            assertTrue(counted == opened, "a waiter counts itself in the open file");
            assertEquals(before + 1, reader.others());
            CpuWatch.spun(counted);
            assertEquals(before, reader.others());
            if (!first.shared()) { // a waiter counted before the file was open gives back there, not to the file
                first.add(-1);
                assertEquals(before, reader.others());
            }
        } finally {
            other.destroyForcibly().waitFor();
        }
    }

    @Test
    void countsLandInTheFileAsNativeOrderPidAndCountPairs() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        // this module's tests run with jdk.internal.misc exported, as the agent does: the ints go through MappedInts
        assertTrue(HostSpinners.UNSAFE, "surefire's argLine exports jdk.internal.misc to the class path");
        int pid = (int) ProcessHandle.current().pid();
        HostSpinners a = HostSpinners.open(dir, pid);
        assertTrue(a.shared());
        a.add(3);
        a.add(4);
        java.nio.ByteBuffer file = java.nio.ByteBuffer.wrap(Files.readAllBytes(dir.resolve(
                Files.list(dir).findFirst().orElseThrow().getFileName()))).order(java.nio.ByteOrder.nativeOrder());
        int found = 0;
        for (int off = 0; off < HostSpinners.SLOTS * 8; off += 8) {
            if (file.getInt(off) == pid) {
                found++;
                assertEquals(7, file.getInt(off + 4), "count next to the pid");
            } else {
                assertEquals(0, file.getInt(off + 4), "no count in another slot");
            }
        }
        assertEquals(1, found, "one slot claimed");
    }

    @Test
    void aDeadJvmsCountIsIgnoredAndItsSlotReused() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        HostSpinners a = HostSpinners.open(dir, ProcessHandle.current().pid());
        Process dead = sleeper();
        HostSpinners d = HostSpinners.open(dir, dead.pid());
        d.add(5);
        assertEquals(5, a.others());
        dead.destroyForcibly().waitFor(); // it dies while counted
        Thread.sleep(1100); // readers look for gone processes once a second
        assertEquals(0, a.others(), "a dead process's count is no waiter");
        // the other slots, the dead one's included, go to new JVMs; then none is left
        Process[] live = new Process[HostSpinners.SLOTS - 1];
        try {
            for (int i = 0; i < live.length; i++) {
                live[i] = sleeper();
                assertTrue(HostSpinners.open(dir, live[i].pid()).shared(), "slot for JVM " + i);
            }
            Process more = sleeper();
            try {
                assertFalse(HostSpinners.open(dir, more.pid()).shared(), "no slot left: that JVM counts alone");
            } finally {
                more.destroyForcibly().waitFor();
            }
        } finally {
            for (Process p : live) {
                if (p != null) {
                    p.destroyForcibly().waitFor();
                }
            }
        }
    }

    @Test
    void aFileOthersMayWriteIsNotUsed() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path f = dir.resolve("remora-spinners-" + uid);
        Files.createFile(f);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertFalse(HostSpinners.open(dir, ProcessHandle.current().pid()).shared());
        HostSpinners none = HostSpinners.open(dir.resolve("missing-dir"), ProcessHandle.current().pid());
        assertFalse(none.shared());
        none.add(1); // harmless
        assertEquals(0, none.others());
    }
    @Test
    void theFileIsASegmentFromJdk22AndABufferBefore() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        HostSpinners a = HostSpinners.open(dir, ProcessHandle.current().pid());
        assertEquals(Runtime.version().feature() >= 22 ? "segment" : "buffer", a.mappedAs());
    }

    /**
     * A JDK 25 JVM maps the file as a memory segment, this one (JDK 17 in the build) as a buffer: each sees the
     * other's count, so the segment covers the slots and grows a new file as the buffer does.
     */
    @Test
    void aJdk25JvmAndThisOneShareTheFile() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux only");
        Path jdk25 = Path.of(System.getProperty("remora.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java");
        assumeTrue(Files.isExecutable(jdk25), jdk25 + " not installed (scripts/setup.sh installs it)");
        Process other = new ProcessBuilder(jdk25.toString(), "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Counter.class.getName(), dir.toString(), "3")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(
                    other.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("segment", out.readLine(), "JDK 25 maps the file as a segment");
            HostSpinners mine = HostSpinners.open(dir, ProcessHandle.current().pid());
            assertEquals(3, mine.others(), "this JVM reads the JDK 25 JVM's count");
            mine.add(4);
            other.getOutputStream().write('\n');
            other.getOutputStream().flush();
            assertEquals("others 4", out.readLine(), "the JDK 25 JVM reads this one's");
        } finally {
            other.destroyForcibly().waitFor();
        }
    }

    /** Another JVM's side of {@link #aJdk25JvmAndThisOneShareTheFile}: maps DIR's file, counts N, reports. */
    public static final class Counter {
        public static void main(String[] args) throws Exception {
            HostSpinners h = HostSpinners.open(Path.of(args[0]), ProcessHandle.current().pid());
            h.add(Integer.parseInt(args[1]));
            System.out.println(h.mappedAs()); // once counted
            System.in.read();
            System.out.println("others " + h.others());
        }
    }
}
