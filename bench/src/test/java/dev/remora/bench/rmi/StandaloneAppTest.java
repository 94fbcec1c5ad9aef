package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The benchmark app must run with only its own classes and Remora's optional API jar on the class path
 * (scripts/compare.sh runs it so, proving it knows nothing else of Remora, as an application would ship the API jar
 * for Remora.async): no class of dev.remora.bench.rmi may name a class outside the JDK, its own package and
 * dev.remora.api. Checked on the compiled constant pools, where every referenced class name appears.
 */
class StandaloneAppTest {

    @Test
    void appClassesReferenceOnlyTheJdkTheirOwnPackageAndTheApi() throws Exception {
        Path dir = classesDir();
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                checked++;
                // Class names in the constant pool are modified UTF-8; ASCII names read fine as ISO-8859-1.
                String pool = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                for (String forbidden : new String[] {"org/openjdk/jmh", "net/bytebuddy", "org/objectweb",
                        "com/esotericsoftware"}) {
                    if (pool.contains(forbidden)) {
                        offenders.add(f.getFileName() + " -> " + forbidden);
                    }
                }
                int at = -1;
                while ((at = pool.indexOf("dev/remora/", at + 1)) >= 0) {
                    if (!pool.startsWith("dev/remora/bench/rmi/", at) && !pool.startsWith("dev/remora/api/", at)) {
                        offenders.add(f.getFileName() + " -> " + pool.substring(at, Math.min(pool.length(), at + 40)));
                    }
                }
            }
        }
        assertTrue(checked >= 10, "expected the app's classes in " + dir + ", found " + checked);
        assertEquals(List.of(), offenders);
    }

    private static Path classesDir() throws URISyntaxException {
        return Path.of(BenchClient.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/remora/bench/rmi");
    }
}
