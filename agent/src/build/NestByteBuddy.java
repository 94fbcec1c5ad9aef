import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.util.Enumeration;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Build step of the agent module, run by Maven after the shade plugin ({@code java NestByteBuddy.java JAR}): moves the
 * shaded Byte Buddy and the one class that uses it ({@code AdviceWeaver}) out of remora-agent.jar into a single
 * stored entry, {@code META-INF/remora/byte-buddy.jar}, and stores the jar's other entries uncompressed too.
 *
 * <p>Why: every JVM started with the agent opens its jar and reads and hashes the jar's whole central directory, and
 * Byte Buddy was 3,087 of its 3,415 entries, while a JVM whose hooked classes come from the woven-class cache never
 * loads a Byte Buddy class. The weaver extracts the nested jar only when it has to weave ({@code Weaver}). The nested
 * jar's entries carry a fixed time, so the same classes give the same bytes (and the same woven-class cache key).
 * Running it twice is harmless: a jar without the moved entries is left as it is.
 */
public final class NestByteBuddy {
    static final String NESTED = "META-INF/remora/byte-buddy.jar";
    static final String[] MOVED = {"dev/remora/internal/bytebuddy/", "dev/remora/agent/AdviceWeaver"};
    /** Any fixed time (zip times before 1980 are not representable); local, so the time zone does not matter. */
    static final LocalDateTime FIXED_TIME = LocalDateTime.of(2000, 1, 1, 0, 0);

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java NestByteBuddy.java remora-agent.jar");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        try (ZipFile in = new ZipFile(jar.toFile())) {
            if (in.getEntry(NESTED) != null) {
                if (hasMoved(in)) {
                    throw new IOException(jar + " holds both " + NESTED + " and Byte Buddy classes: rebuild it");
                }
                System.out.println("NestByteBuddy: " + jar + " already nested");
                return;
            }
        }
        Path out = jar.resolveSibling(jar.getFileName() + ".nesting");
        int kept = 0;
        int moved = 0;
        ByteArrayOutputStream nestedBytes = new ByteArrayOutputStream(8 << 20);
        try (ZipFile in = new ZipFile(jar.toFile());
                ZipOutputStream outer = new ZipOutputStream(Files.newOutputStream(out));
                ZipOutputStream inner = new ZipOutputStream(nestedBytes)) {
            for (Enumeration<? extends ZipEntry> en = in.entries(); en.hasMoreElements(); ) {
                ZipEntry e = en.nextElement();
                boolean move = isMoved(e.getName());
                ZipEntry copy = new ZipEntry(e.getName());
                if (move) {
                    copy.setTimeLocal(FIXED_TIME);
                } else {
                    copy.setTime(e.getTime());
                }
                ZipOutputStream to = move ? inner : outer;
                byte[] data;
                try (InputStream i = in.getInputStream(e)) {
                    data = e.isDirectory() ? new byte[0] : i.readAllBytes();
                }
                if (!move) {
                    stored(copy, data);
                }
                to.putNextEntry(copy);
                to.write(data);
                to.closeEntry();
                if (move) {
                    moved++;
                } else {
                    kept++;
                }
            }
            if (moved == 0) {
                throw new IOException(jar + " holds no Byte Buddy classes to nest: was it shaded?");
            }
            inner.finish();
            byte[] nested = nestedBytes.toByteArray();
            ZipEntry e = new ZipEntry(NESTED);
            stored(e, nested); // read back as it lies in the jar: no inflating of a compressed jar again
            e.setTimeLocal(FIXED_TIME);
            outer.putNextEntry(e);
            outer.write(nested);
            outer.closeEntry();
        }
        Files.move(out, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("NestByteBuddy: " + jar + ": " + kept + " entries, " + moved + " moved into " + NESTED);
    }

    /**
     * Makes {@code e} a stored (uncompressed) entry of {@code data}. Every entry of the agent jar is stored: an RMI JVM
     * loads about 200 of its classes, and inflating them (the JDK's {@code Inflater} and {@code ZipFile} paths made
     * hot enough for C1) cost 7-15 ms of CPU per JVM (docs/startup.md); the jar is about 0.9 MB larger for it.
     */
    private static void stored(ZipEntry e, byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        e.setMethod(ZipEntry.STORED);
        e.setSize(data.length);
        e.setCompressedSize(data.length);
        e.setCrc(crc.getValue());
    }

    private static boolean hasMoved(ZipFile in) {
        for (Enumeration<? extends ZipEntry> en = in.entries(); en.hasMoreElements(); ) {
            if (isMoved(en.nextElement().getName())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMoved(String name) {
        for (String prefix : MOVED) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private NestByteBuddy() {
    }
}
