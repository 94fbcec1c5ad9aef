package dev.remora.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * JDK classes as Remora wove them, kept on disk between JVMs ({@code remora.cache.dir}): weaving with Byte Buddy costs
 * a JVM 150-400 ms of CPU at its first RMI use (loading and running Byte Buddy cold), reading a woven class back about
 * a millisecond. A JVM of the same JDK with the same agent finds its classes here and loads no Byte Buddy at all.
 *
 * <p>An entry is found by the JDK's class file and the weaving's inputs (hook points, advice, bridge, Byte Buddy's
 * version) and holds both in full: it is used only when both are byte for byte those of this JVM, so a different JDK
 * build or agent never gets another's classes. The entry ends with a CRC32C of its bytes (a damaged file is deleted
 * and woven again). The woven bytes go into {@code java.base} and {@code java.rmi} unverified, so the directory must
 * be this user's alone: Remora creates it {@code rwx------} and uses it only if it is owned by the process's user and
 * writable by nobody else, as are the entries; otherwise it says so once and weaves every time. Entries are written
 * to a temporary file and moved into place, so JVMs starting together never read half a file; at most
 * {@link #KEEP_PER_CLASS} entries per class are kept (JDK 17 and 25 side by side, a few agent builds).
 */
final class WovenCache {
    private static final int MAGIC = 0x524d5756; // "RMWV"
    private static final int VERSION = 1;
    static final int KEEP_PER_CLASS = 6;
    private static final Set<PosixFilePermission> OTHERS_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private final Path dir;

    private WovenCache(Path dir) {
        this.dir = dir;
    }

    /**
     * The cache for the setting of {@code remora.cache.dir}: {@code auto} = {@code $XDG_CACHE_HOME/remora} or
     * {@code ~/.cache/remora}; {@code off} = none. Null (said once at info level) when the directory cannot be made
     * or is not this user's alone.
     */
    static WovenCache open(String setting) {
        if ("off".equals(setting)) {
            return null;
        }
        Path base;
        if (setting != null && !setting.isEmpty() && !setting.equals("auto")) {
            base = Path.of(setting);
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            String home = System.getProperty("user.home");
            if (xdg != null && xdg.startsWith("/")) {
                base = Path.of(xdg, "remora");
            } else if (home != null && !home.isEmpty() && !home.equals("?")) {
                base = Path.of(home, ".cache", "remora");
            } else {
                return null;
            }
        }
        Path dir = base.toAbsolutePath().resolve("woven");
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir.getParent());
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
                } catch (UnsupportedOperationException notPosix) {
                    Files.createDirectory(dir);
                }
            }
            String problem = notPrivate(dir);
            if (problem != null) {
                Log.once("woven-cache", "not keeping woven JDK classes in " + dir + " (" + problem + "): every JVM"
                        + " weaves them again at its first RMI use; set remora.cache.dir to a directory of your own,"
                        + " or to off");
                return null;
            }
            return new WovenCache(dir);
        } catch (IOException | RuntimeException e) {
            Log.once("woven-cache", "cannot keep woven JDK classes in " + dir + " (" + e + "): every JVM weaves"
                    + " them again at its first RMI use; set remora.cache.dir to a writable directory, or to off");
            return null;
        }
    }

    Path dir() {
        return dir;
    }

    /** Why {@code p} may not be trusted (owned by another user, writable by others, a link), or null. */
    static String notPrivate(Path p) throws IOException {
        if (Files.isSymbolicLink(p)) {
            return "it is a symbolic link";
        }
        Object mine;
        try {
            mine = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            mine = null; // not Linux: the owner's name is compared below
        }
        if (mine != null) {
            Object owner = Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!mine.equals(owner)) {
                return "owned by uid " + owner + ", this process runs as uid " + mine;
            }
        } else if (!Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))) {
            return "owned by " + Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName();
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            for (PosixFilePermission w : OTHERS_WRITE) {
                if (perms.contains(w)) {
                    return "writable by others: " + PosixFilePermissions.toString(perms);
                }
            }
        } catch (UnsupportedOperationException notPosix) {
            // no POSIX permissions to check (the owner was)
        }
        return null;
    }

    /** The woven bytes of {@code original} under {@code inputs}, or null when no entry holds exactly these. */
    byte[] get(String typeName, byte[] inputs, byte[] original) {
        Path file = dir.resolve(fileName(typeName, inputs, original));
        byte[] bytes;
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || notPrivate(file) != null) {
                return null;
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - Long.BYTES);
            if (bytes.length < 4 * Integer.BYTES + Long.BYTES || b.getLong(bytes.length - Long.BYTES) != crc.getValue()
                    || b.getInt() != MAGIC || b.getInt() != VERSION) {
                throw new IOException("damaged");
            }
            if (!matches(b, inputs) || !matches(b, original)) {
                return null; // a CRC collision of the name: leave that entry to its own JVMs
            }
            int n = b.getInt();
            if (n <= 0 || n > b.remaining() - Long.BYTES) {
                throw new IOException("damaged");
            }
            byte[] woven = new byte[n];
            b.get(woven);
            return woven;
        } catch (IOException | RuntimeException damaged) {
            Log.once("woven-cache-damaged", "a damaged entry of the woven-class cache was deleted: " + file);
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // the next JVM tries again
            }
            return null;
        }
    }

    private static boolean matches(ByteBuffer b, byte[] expected) {
        int n = b.getInt();
        if (n != expected.length || n > b.remaining()) {
            return false;
        }
        int from = b.position();
        b.position(from + n);
        return Arrays.equals(b.array(), from, from + n, expected, 0, n);
    }

    /** Keeps {@code woven} for later JVMs; a failure costs only the next JVM a weave (said at debug level). */
    void put(String typeName, byte[] inputs, byte[] original, byte[] woven) {
        Path file = dir.resolve(fileName(typeName, inputs, original));
        Path tmp = null;
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(inputs.length + original.length + woven.length + 32);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            for (byte[] part : new byte[][] {inputs, original, woven}) {
                out.writeInt(part.length);
                out.write(part);
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeLong(crc.getValue());
            tmp = Files.createTempFile(dir, typeName, ".tmp"); // rw------- on POSIX
            Files.write(tmp, bytes.toByteArray());
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
            prune(typeName);
        } catch (IOException | RuntimeException e) {
            Log.debug("could not keep the woven " + typeName + " in " + dir + ": " + e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // left for the next prune
                }
            }
        }
    }

    /** Deletes all but the {@link #KEEP_PER_CLASS} newest entries of {@code typeName}. */
    private void prune(String typeName) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, typeName + "-*")) {
            ds.forEach(entries::add);
        }
        if (entries.size() <= KEEP_PER_CLASS) {
            return;
        }
        entries.sort(Comparator.comparing(WovenCache::modified).reversed());
        for (Path old : entries.subList(KEEP_PER_CLASS, entries.size())) {
            Files.deleteIfExists(old);
        }
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /** {@code <class>-<crc32c of inputs><crc32c of the class file>.woven}. */
    static String fileName(String typeName, byte[] inputs, byte[] original) {
        CRC32C a = new CRC32C();
        a.update(inputs);
        CRC32C b = new CRC32C();
        b.update(original);
        return typeName + '-' + hex8(a.getValue()) + hex8(b.getValue()) + ".woven";
    }

    private static String hex8(long v) {
        String h = Long.toHexString(v | 0x1_0000_0000L); // 9 digits, the first a 1
        return h.substring(1);
    }
}
