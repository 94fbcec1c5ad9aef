package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.agent.hooks.HookPoint;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WovenCacheTest {
    @TempDir
    Path tmp;

    private static byte[] unicastRef() throws Exception {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("sun/rmi/server/UnicastRef.class")) {
            return in.readAllBytes();
        }
    }

    private static List<HookPoint> pointsOf(String internalName) {
        return HookPoint.ALL.stream().filter(h -> h.internalName().equals(internalName)).collect(Collectors.toList());
    }

    @Test
    void aSecondWeaverTakesTheClassFromTheCacheWithoutByteBuddy() throws Exception {
        byte[] original = unicastRef();
        List<HookPoint> points = pointsOf("sun/rmi/server/UnicastRef");
        assertFalse(points.isEmpty());
        WovenCache cache = WovenCache.open(tmp.toString());
        assertNotNull(cache);

        Weaver first = new Weaver(getClass().getClassLoader(), cache);
        byte[] woven = first.weave("sun.rmi.server.UnicastRef", original, points);
        assertNotNull(byteBuddyOf(first), "a miss weaves with Byte Buddy");
        assertFalse(java.util.Arrays.equals(original, woven));

        Weaver second = new Weaver(getClass().getClassLoader(), cache);
        assertArrayEquals(woven, second.weave("sun.rmi.server.UnicastRef", original, points));
        assertNull(byteBuddyOf(second), "a hit loads no Byte Buddy");

        // another JDK's class file (here: one byte changed) is another entry
        byte[] other = original.clone();
        other[other.length - 1] ^= 1;
        assertNull(cache.get("sun.rmi.server.UnicastRef", new byte[] {1}, original), "other inputs: a miss");
        assertNull(cache.get("sun.rmi.server.UnicastRef", inputsOf(tmp), other), "another class file: a miss");
    }

    @Test
    void oneWeaverWeavesSeveralClassesAndAnotherTakesThemAllFromTheCache() throws Exception {
        WovenCache cache = WovenCache.open(tmp.toString());
        String[] names = {"sun/rmi/server/UnicastRef", "sun/rmi/server/UnicastServerRef"};
        Weaver first = new Weaver(getClass().getClassLoader(), cache);
        Weaver second = new Weaver(getClass().getClassLoader(), cache);
        byte[][] woven = new byte[names.length][];
        for (int i = 0; i < names.length; i++) { // the second class reuses the class files the first one read
            woven[i] = first.weave(names[i].replace('/', '.'), classFile(names[i]), pointsOf(names[i]));
        }
        for (int i = 0; i < names.length; i++) {
            assertArrayEquals(woven[i], second.weave(names[i].replace('/', '.'), classFile(names[i]),
                    pointsOf(names[i])), names[i]);
        }
        assertNull(byteBuddyOf(second), "both were hits");
    }

    private static byte[] classFile(String internalName) throws Exception {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void aDamagedEntryIsDeletedAndWovenAgain() throws Exception {
        WovenCache cache = WovenCache.open(tmp.toString());
        byte[] inputs = {1, 2, 3};
        byte[] original = {4, 5, 6, 7};
        cache.put("x.Y", inputs, original, new byte[] {8, 9});
        assertArrayEquals(new byte[] {8, 9}, cache.get("x.Y", inputs, original));
        Path file = cache.dir().resolve(WovenCache.fileName("x.Y", inputs, original));
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 10] ^= 0x40; // inside the woven bytes: the CRC no longer matches
        Files.write(file, bytes);
        assertNull(cache.get("x.Y", inputs, original));
        assertFalse(Files.exists(file), "a damaged entry is deleted");
        Files.write(file, new byte[] {1, 2}); // too short to hold anything
        assertNull(cache.get("x.Y", inputs, original));
    }

    @Test
    void aDirectoryOthersMayWriteIsNotUsed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("shared").resolve("woven"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertNull(WovenCache.open(tmp.resolve("shared").toString()));
        assertTrue(WovenCache.notPrivate(dir).startsWith("writable by others"), WovenCache.notPrivate(dir));

        WovenCache mine = WovenCache.open(tmp.resolve("mine").toString());
        assertNotNull(mine);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mine.dir())));
        assertNull(WovenCache.open("off"));
    }

    @Test
    void anEntryOthersMayWriteIsIgnored() throws Exception {
        WovenCache cache = WovenCache.open(tmp.toString());
        byte[] inputs = {1};
        byte[] original = {2};
        cache.put("x.Y", inputs, original, new byte[] {3});
        Path file = cache.dir().resolve(WovenCache.fileName("x.Y", inputs, original));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertNull(cache.get("x.Y", inputs, original));
    }

    @Test
    void onlyTheNewestEntriesOfAClassAreKept() throws Exception {
        WovenCache cache = WovenCache.open(tmp.toString());
        for (int i = 0; i < WovenCache.KEEP_PER_CLASS + 3; i++) {
            cache.put("x.Y", new byte[] {(byte) i}, new byte[] {1}, new byte[] {2});
            Thread.sleep(5); // distinct modification times
        }
        cache.put("x.Yz", new byte[] {0}, new byte[] {1}, new byte[] {2});
        try (Stream<Path> files = Files.list(cache.dir())) {
            List<String> names = files.map(p -> p.getFileName().toString()).collect(Collectors.toList());
            assertEquals(WovenCache.KEEP_PER_CLASS + 1, names.size(), names.toString());
        }
        byte[] newest = {(byte) (WovenCache.KEEP_PER_CLASS + 2)};
        assertArrayEquals(new byte[] {2}, cache.get("x.Y", newest, new byte[] {1}));
        assertNull(cache.get("x.Y", new byte[] {0}, new byte[] {1}), "the oldest went");
    }

    private static Object byteBuddyOf(Weaver w) throws Exception {
        Field f = Weaver.class.getDeclaredField("byteBuddy");
        f.setAccessible(true);
        return f.get(w);
    }

    /** The inputs of the one entry in the cache under {@code base}, read back from its file. */
    private static byte[] inputsOf(Path base) throws Exception {
        try (Stream<Path> files = Files.list(base.resolve("woven"))) {
            byte[] bytes = Files.readAllBytes(files.findFirst().orElseThrow());
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
            b.getInt();
            b.getInt();
            byte[] inputs = new byte[b.getInt()];
            b.get(inputs);
            return inputs;
        }
    }
}
