package dev.remora.fabric;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libremora_fabric_<arch>.so} in Netty's order: already loaded (a native call answers), then
 * {@code java.library.path}, then the copy packaged at {@code META-INF/native/} extracted into a work folder,
 * {@code System.load}ed and deleted at once. Every failed step is kept as a suppressed exception of the one error
 * returned, whose message names the fix.
 */
final class NativeLibraryLoader {
    static final String FALLBACK_HINT = "or set -Dremora.transport=socket";

    private NativeLibraryLoader() {}

    /** The library's name without "lib" and ".so" for this machine, or null if the platform is not supported. */
    static String libraryName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return null;
        }
        switch (arch) {
            case "amd64":
            case "x86_64":
                return "remora_fabric_x86_64";
            case "aarch64":
                return "remora_fabric_aarch64";
            default:
                return null;
        }
    }

    /** Loads the library; returns null on success, else the cause of unavailability (never throws). */
    static Throwable load(Path workDir) {
        String name = libraryName();
        if (name == null) {
            return new UnsupportedOperationException("the fabric transport needs Linux on x86_64 or aarch64, this is "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ": " + FALLBACK_HINT);
        }
        UnsatisfiedLinkError already;
        try {
            checkAbi();
            return initLibfabric();
        } catch (UnsatisfiedLinkError e) {
            already = e;
        }
        Throwable fromPath;
        try {
            System.loadLibrary(name);
            checkAbi();
            return initLibfabric();
        } catch (Throwable e) {
            fromPath = e;
        }
        Throwable fromJar;
        try {
            loadFromJar(name, workDir);
            checkAbi();
            return initLibfabric();
        } catch (Throwable e) {
            fromJar = e;
        }
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(explain(name, fromJar));
        error.initCause(fromJar);
        error.addSuppressed(already);
        error.addSuppressed(fromPath);
        return error;
    }

    /** Our library is loaded; now libfabric itself (dlopen'ed by the native side). */
    private static Throwable initLibfabric() {
        String failure = FabricNative.init();
        if (failure == null) {
            return null;
        }
        String fix = failure.startsWith("dlopen")
                ? "libfabric not found: install libfabric1 (Debian: apt-get install libfabric1) " + FALLBACK_HINT
                : "libfabric unusable: install libfabric1 1.17 or later (Debian: apt-get install libfabric1) "
                        + FALLBACK_HINT;
        return new UnsatisfiedLinkError(fix + " [" + failure + "]");
    }

    private static void checkAbi() {
        int abi = FabricNative.abiVersion();
        if (abi != FabricNative.ABI_VERSION) {
            throw new UnsatisfiedLinkError("libremora_fabric has ABI " + abi + ", this jar needs "
                    + FabricNative.ABI_VERSION + ": a stale copy is on java.library.path; remove it");
        }
    }

    private static void loadFromJar(String name, Path workDir) throws IOException {
        String resource = "META-INF/native/lib" + name + ".so";
        ClassLoader loader = NativeLibraryLoader.class.getClassLoader();
        URL url = loader != null ? loader.getResource(resource) : ClassLoader.getSystemResource(resource);
        if (url == null) {
            throw new FileNotFoundException(resource + " is not in the jar: it was built without libfabric-dev "
                    + "(Debian: apt-get install libfabric-dev, then rebuild)");
        }
        Path dir = workDir != null ? workDir : Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "lib" + name + "-", ".so");
        try {
            try (InputStream in = url.openStream()) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            System.load(file.toAbsolutePath().toString());
        } finally {
            Files.deleteIfExists(file); // the mapping stays valid; nothing is left behind
        }
    }

    private static String explain(String name, Throwable fromJar) {
        String text = String.valueOf(fromJar.getMessage());
        if (text.contains("libfabric.so")) {
            return "libfabric not found: install libfabric1 (Debian: apt-get install libfabric1) " + FALLBACK_HINT;
        }
        if (fromJar instanceof FileNotFoundException) {
            return "lib" + name + ".so was not built: install libfabric-dev (Debian: apt-get install libfabric-dev) "
                    + "and rebuild, " + FALLBACK_HINT;
        }
        if (fromJar instanceof IOException) {
            return "cannot extract lib" + name + ".so into the work folder (" + text + "): choose a writable, "
                    + "exec-mounted folder, " + FALLBACK_HINT;
        }
        return "cannot load lib" + name + ".so (" + text + ") " + FALLBACK_HINT;
    }
}
