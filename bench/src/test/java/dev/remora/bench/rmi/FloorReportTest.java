package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FloorReportTest {

    private static ResultRow echo(String config, int round, double median) {
        return new ResultRow(config, round, "echo_obj", "byte[]", 100_000, 1000, median, median, median, 0, Double.NaN);
    }

    @Test
    void floorsAreMediansOverRoundsAndTheEchoIsReadAgainstEach() throws Exception {
        List<FloorReport.Measure> m = List.of(
                new FloorReport.Measure("c", 64, 0.8), new FloorReport.Measure("c", 100_000, 24),
                new FloorReport.Measure("c", 100_000, 26), new FloorReport.Measure("c", 100_000, 40),
                new FloorReport.Measure("java-fresh", 100_000, 60), new FloorReport.Measure("java-fresh", 64, 1.2),
                new FloorReport.Measure("c-fresh", 100_000, 46));
        CompareReport r = CompareReport.of(List.of(echo("vanilla", 1, 400), echo("fabric+fast", 1, 80),
                echo("fabric+fast", 2, 104), new ResultRow("socket+fast", 1, "ping", "-", 0, 10, 20, 20, 20, 0,
                        Double.NaN)), List.of("vanilla", "socket+fast", "fabric+fast"), "vanilla");
        String t = FloorReport.text(m, r, List.of());
        assertEquals(26.0, FloorReport.floorUs(m, "c", 100_000), 1e-9); // median of 24, 26, 40
        assertTrue(t.contains("C, fixed buffers") && t.contains("26.0 us") && t.contains("7692 MB/s"), t);
        assertTrue(t.contains("Java, fresh arrays") && t.contains("60.0 us"), t);
        assertTrue(t.contains("C, fresh buffers                  - us             46.0 us    4348 MB/s"), t);
        // fabric+fast: median of 80 and 104 = 92 us; C 26/92 = 28 %, C fresh 46/92 = 50 %, Java 60/92 = 65 %
        assertTrue(t.contains("fabric+fast        92.0 us   C 28%   C fresh 50%   Java 65%"), t);
        assertTrue(t.contains("vanilla           400.0 us   C 7%   C fresh 12%   Java 15%"), t);
        assertTrue(!t.contains("socket+fast"), "a configuration without the echo row is not listed: " + t);
        assertEquals("", FloorReport.text(List.of(), r, List.of()));
    }

    /** As in a run where round 2 fell in one of the VM's slow stretches for the call but not for the floors. */
    @Test
    void sameRoundSharesPairEachRoundsFloorWithItsCall() {
        List<FloorReport.Measure> m = List.of(
                new FloorReport.Measure("c", 100_000, 26, 1), new FloorReport.Measure("java-fresh", 100_000, 64, 1),
                new FloorReport.Measure("c", 100_000, 22, 2), new FloorReport.Measure("java-fresh", 100_000, 62, 2),
                new FloorReport.Measure("c", 100_000, 31, 3), new FloorReport.Measure("java-fresh", 100_000, 135, 3));
        List<ResultRow> rows = List.of(echo("fabric+fast", 1, 73), echo("fabric+fast", 2, 162),
                echo("fabric+fast", 3, 148), echo("vanilla", 1, 400));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "fabric+fast"), "vanilla");
        // medians: 26 and 64 against 148 -> 18 %, 43 %; per round C 36, 14, 21 % -> 21 %, Java 88, 38, 91 % -> 88 %
        assertEquals(64.0 / 73, FloorReport.sameRoundShare(m, rows, "java-fresh", "fabric+fast"), 1e-9);
        String t = FloorReport.text(m, r, rows);
        assertTrue(t.contains("fabric+fast       148.0 us   C 18%   Java 43%   | same round:   C 21%   Java 88%"), t);
        assertTrue(t.contains("vanilla           400.0 us   C 7%   Java 16%   | same round:   C 7%   Java 16%"), t);
        assertTrue(!FloorReport.text(m, r, List.of()).contains("same round"), "without the rows, medians only");
    }

    @Test
    void readsTheFloorFilesAndSkipsWhatIsNotAFloorLine(@TempDir Path dir) throws Exception {
        Path floor = Files.createDirectories(dir.resolve("floor"));
        Files.writeString(floor.resolve("floor-r1.csv"), "c,shm,block,64,20000,1,0,0.742,1.0,86.3\n"
                + "c,shm,block,100000,20000,1,0,27.687,50.1,7224.9\n");
        Files.writeString(floor.resolve("floor-r2-fresh.csv"), "c-fresh,shm,block,100000,20000,1,0,35.5,80,5633.8\n");
        Files.writeString(floor.resolve("floor-r1-java.csv"), "impl,provider,mode,size,iters,client_cpu,server_cpu,"
                + "median_us,p99_us,mb_per_s\njava-fresh,shm,block,100000,20000,1,0,66.705,143.1,2998.3\n"
                + "java-fresh,shm,block,100000,20000,1,0,oops,,\nsomething else\n");
        List<FloorReport.Measure> m = FloorReport.read(floor);
        assertEquals(Set.of(new FloorReport.Measure("c", 64, 0.742, 1), new FloorReport.Measure("c", 100_000, 27.687, 1),
                new FloorReport.Measure("java-fresh", 100_000, 66.705, 1),
                new FloorReport.Measure("c-fresh", 100_000, 35.5, 2)), Set.copyOf(m));
        assertEquals(4, m.size());
        assertEquals(List.of(), FloorReport.read(dir.resolve("absent")));
    }

    @Test
    void theReportCarriesTheFloors(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("raw"));
        Files.writeString(dir.resolve("raw/fabric+fast-r1.csv"), echo("fabric+fast", 1, 80).toCsv() + "\n");
        Files.createDirectories(dir.resolve("floor"));
        Files.writeString(dir.resolve("floor/floor-r1.csv"), "c,shm,block,100000,20000,1,0,24.0,50,8333\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompareReport.run(dir, "fabric+fast", "fabric+fast", new PrintStream(out, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("fabric+fast        80.0 us   C 30%"), printed);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("C 30%"));
    }
}
