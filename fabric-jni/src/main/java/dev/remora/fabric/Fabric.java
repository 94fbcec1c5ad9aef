package dev.remora.fabric;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Availability of Remora's native fabric transport, as a value (Netty's {@code Epoll} pattern): the library is
 * loaded once, on the first call; if that fails, {@link #isAvailable()} is false and {@link #unavailabilityCause()}
 * says why and how to fix it. Nothing here throws except {@link #ensureAvailability()}.
 *
 * <p>Call {@link #load(Path)} first to choose the folder the packaged library is extracted into (default
 * {@code java.io.tmpdir}); later calls with another folder have no effect.
 */
public final class Fabric {
    private static volatile Throwable cause;
    private static volatile boolean loaded;

    private Fabric() {}

    /** Loads the native library once, extracting it into workDir (null: java.io.tmpdir) if it must. */
    public static synchronized boolean load(Path workDir) {
        if (!loaded) {
            cause = NativeLibraryLoader.load(workDir);
            loaded = true;
        }
        return cause == null;
    }

    public static boolean isAvailable() {
        return load(null);
    }

    /** Why the transport is unavailable (its message names the fix), or null if it is available. */
    public static Throwable unavailabilityCause() {
        load(null);
        return cause;
    }

    /** Throws an {@link UnsatisfiedLinkError} carrying {@link #unavailabilityCause()} if unavailable. */
    public static void ensureAvailability() {
        Throwable c = unavailabilityCause();
        if (c != null) {
            UnsatisfiedLinkError e = new UnsatisfiedLinkError("the fabric transport is unavailable: " + c.getMessage());
            e.initCause(c);
            throw e;
        }
    }

    /** The version of the libfabric the library is linked with, e.g. "1.17". */
    public static String libfabricVersion() {
        ensureAvailability();
        return FabricNative.libfabricVersion();
    }

    /**
     * Providers that offer tagged RDM endpoints, e.g. [shm, tcp;ofi_rxm, udp;ofi_rxd]; empty if unavailable.
     * Layered providers appear with their core ("tcp;ofi_rxm"), the form {@link FabricEndpoint#open} takes.
     */
    public static List<String> providers() {
        if (!isAvailable()) {
            return Collections.emptyList();
        }
        String text;
        try {
            text = FabricNative.providers();
        } catch (IOException e) {
            return Collections.emptyList();
        }
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty()) {
                out.add(line);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Removes what processes of this user that are gone left in /dev/shm: libfabric's shm regions
     * ({@code PID:N:N}, 16 MB each) and Remora's shared rings ({@code PID:remora:N}). Only a process killed with
     * SIGKILL (or a crash) leaves them: its exit hook never ran, and each file keeps its RAM until reboot. A file
     * is removed only when its name has one of those forms, it belongs to this user, and no process with its PID is
     * alive (PIDs of other PID namespaces sharing /dev/shm cannot be told apart: such setups should give each
     * namespace its own /dev/shm, as containers do). Best effort; never throws.
     *
     * @return the names removed
     */
    public static List<String> removeRegionsOfDeadProcesses() {
        return removeRegionsOfDeadProcesses(Path.of("/dev/shm"));
    }

    static List<String> removeRegionsOfDeadProcesses(Path dir) {
        List<String> removed = new ArrayList<>();
        Object me;
        try {
            me = Files.getAttribute(Path.of("/proc/self"), "unix:uid"); // this process's user
        } catch (IOException | RuntimeException e) {
            return removed; // not Linux, or no unix attributes: leave everything alone
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                long pid = regionPid(name);
                if (pid <= 0 || alive(pid)) {
                    continue;
                }
                try {
                    if (me.equals(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                            && Files.deleteIfExists(p)) {
                        removed.add(name);
                    }
                } catch (IOException | RuntimeException ignored) {
                    // gone meanwhile, or not ours to remove
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // no /dev/shm: nothing to clean
        }
        return removed;
    }

    /**
     * Whether a process with this id lives: its {@code /proc} folder (we got here through {@code /proc/self}).
     * Not {@code ProcessHandle}, whose first use took 5.5 ms of CPU on JDK 17 and 7.5 ms on 25, as the spinners'
     * liveness check found ({@code HostSpinners}).
     */
    static boolean alive(long pid) {
        return Files.isDirectory(Path.of("/proc", Long.toString(pid)));
    }

    /** The PID in a name of the form PID:N:N or PID:remora:N, else -1. */
    static long regionPid(String name) {
        String[] parts = name.split(":", -1);
        if (parts.length != 3 || !digits(parts[0]) || !digits(parts[2])
                || !(digits(parts[1]) || parts[1].equals("remora")) || parts[0].length() > 10) {
            return -1;
        }
        return Long.parseLong(parts[0]);
    }

    private static boolean digits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Removes the shm provider's region files (/dev/shm/PID:UID:N, 16 MB each) of a process that was killed with
     * SIGKILL, which skips libfabric's cleanup and Remora's exit hook, so each file would keep 16 MB of RAM until
     * reboot. Only call it once {@code pid} is dead: a live process's endpoints would lose their names. Best effort.
     */
    public static void removeShmRegionsOf(long pid) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/dev/shm"), pid + ":*")) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException ignored) {
            // no /dev/shm, or already gone: nothing to clean
        }
    }
}
