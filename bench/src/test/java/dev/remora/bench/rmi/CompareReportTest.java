package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareReportTest {

    private static ResultRow row(String config, int round, String kernel, String object, int n, double median,
            double cps) {
        return new ResultRow(config, round, kernel, object, n, 1000, median, median * 1.1, median * 2, cps, Double.NaN);
    }

    @Test
    void asyncRatiosAreTakenWithinEachConfiguration() {
        List<ResultRow> rows = List.of(
                row("vanilla", 1, "ping", "-", 0, 25, 40_000), row("socket+async", 1, "ping", "-", 0, 25, 50_000),
                row("vanilla", 1, "oneway", "-", 0, 24, 42_000),
                row("socket+async", 1, "oneway", "-", 0, 0.4, 1_000_000),
                row("vanilla", 1, "future_late", "-", 0, 40, 0), row("socket+async", 1, "future_late", "-", 0, 10, 0),
                row("vanilla", 1, "future_sync", "-", 0, 40, 0), row("socket+async", 1, "future_sync", "-", 0, 30, 0),
                row("vanilla", 1, "future_wait1ms", "-", 0, 1_100_000, 0),
                row("socket+async", 1, "future_wait1ms", "-", 0, 55_000, 0),
                row("vanilla", 1, "sync_wait1ms", "-", 0, 1_100_000, 0),
                row("socket+async", 1, "sync_wait1ms", "-", 0, 1_100_000, 0));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "socket+async"), "vanilla");
        String t = r.asyncText();
        assertTrue(t.matches("(?s).*one-way calls/s / void ping\\(\\) calls/s +1\\.05 +20\\.0\n.*"), t);
        assertTrue(t.matches("(?s).*future used late / synchronous \\(time\\) +1\\.00 +0\\.333\n.*"), t);
        assertTrue(t.matches("(?s).*1000 x 1 ms: futures / synchronous \\(time\\) +1\\.00 +0\\.0500\n.*"), t);
        assertTrue(!t.contains("at once") && !t.contains("star"), "no row without its kernels: " + t);
        assertTrue(r.text(Map.of()).contains("1000000/s"), "one-way rows show calls/s: " + r.text(Map.of()));
        assertEquals("", CompareReport.of(List.of(row("vanilla", 1, "ping", "-", 0, 20, 0)), List.of("vanilla"),
                "vanilla").asyncText());
    }

    @Test
    void cpuTableFromRowsThatHaveIt() {
        List<ResultRow> rows = List.of(
                new ResultRow("vanilla", 1, "ping", "-", 0, 1000, 40, 50, 60, 0, 20.0),
                new ResultRow("vanilla", 2, "ping", "-", 0, 1000, 40, 50, 60, 0, 30.0),
                new ResultRow("vanilla", 3, "ping", "-", 0, 1000, 40, 50, 60, 0, 25.0),
                new ResultRow("agent-off", 1, "ping", "-", 0, 1000, 45, 50, 60, 0, 25.5),
                new ResultRow("agent-off", 2, "ping", "-", 0, 1000, 45, 50, 60, 0, Double.NaN),
                new ResultRow("agent-off", 3, "ping", "-", 0, 1000, 45, 50, 60, 0, 25.5));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "agent-off"), "vanilla");
        CompareReport.Row ping = r.rows().get(0);
        assertEquals(25.0, ping.cells().get("vanilla").cpuUs(), 1e-9);
        assertEquals(25.5, ping.cells().get("agent-off").cpuUs(), 1e-9); // the unmeasured round is left out
        assertEquals(-2.0, r.cpuSavedPercent(ping, "agent-off"), 1e-9);
        String cpu = r.cpuText();
        assertTrue(cpu.contains("25.5 (-2%)"), cpu);
        assertTrue(cpu.contains("median % CPU saved vs vanilla"), cpu);
        assertTrue(r.csv().contains(",25.500,\n"), r.csv()); // cpu_us, then an empty steady_us
        CompareReport none = CompareReport.of(List.of(row("vanilla", 1, "ping", "-", 0, 20, 0)), List.of("vanilla"),
                "vanilla");
        assertEquals("", none.cpuText());
    }

    @Test
    void steadyTableLeavesOutTheSlowModeThePlainMedianShows() {
        // round 2 of agent-off met the slow wake-up mode for most of its run: its plain median doubled, its fastest
        // block did not
        List<ResultRow> rows = List.of(
                new ResultRow("vanilla", 1, "ping", "-", 0, 1000, 24, 30, 60, 0, Double.NaN, 23.6),
                new ResultRow("vanilla", 2, "ping", "-", 0, 1000, 25, 30, 60, 0, Double.NaN, 23.4),
                new ResultRow("agent-off", 1, "ping", "-", 0, 1000, 24, 30, 60, 0, Double.NaN, 23.5),
                new ResultRow("agent-off", 2, "ping", "-", 0, 1000, 48, 60, 90, 0, Double.NaN, 23.7),
                new ResultRow("vanilla", 1, "star", "4int", 0, 1000, 100, 110, 200, 40_000, Double.NaN, Double.NaN),
                new ResultRow("agent-off", 1, "star", "4int", 0, 1000, 100, 110, 200, 40_000, Double.NaN,
                        Double.NaN));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "agent-off"), "vanilla");
        CompareReport.Row ping = r.rows().get(0);
        assertEquals(23.5, ping.cells().get("vanilla").steadyUs(), 1e-9);
        assertEquals(23.6, ping.cells().get("agent-off").steadyUs(), 1e-9);
        assertEquals(-0.4255, r.steadySavedPercent(ping, "agent-off"), 1e-3);
        assertTrue(r.savedPercent(ping, "agent-off") < -40, "the plain median carries the slow round");
        assertTrue(Double.isNaN(r.steadySavedPercent(r.rows().get(1), "agent-off")), "star has no call order");
        String steady = r.steadyText();
        assertTrue(steady.startsWith("steady us"), steady);
        assertTrue(steady.contains("23.6 (-0%)"), steady);
        assertTrue(steady.contains("-0.4%"), steady);
        assertTrue(!steady.contains("star"), steady);
        assertTrue(r.csv().contains("agent-off,ping,-,0,2,36.000,45.000,75.000,0.0,-46.94,,23.600\n"), r.csv());
        assertEquals("", CompareReport.of(List.of(row("vanilla", 1, "ping", "-", 0, 20, 0)), List.of("vanilla"),
                "vanilla").steadyText());
    }

    @Test
    void medianOfRoundMediansAndPercentSaved() {
        List<ResultRow> rows = List.of(
                row("vanilla", 1, "ping", "-", 0, 20, 0), row("fast", 1, "ping", "-", 0, 10, 0),
                row("vanilla", 2, "ping", "-", 0, 22, 0), row("fast", 2, "ping", "-", 0, 11, 0),
                row("vanilla", 3, "ping", "-", 0, 90, 0), row("fast", 3, "ping", "-", 0, 12, 0),
                row("vanilla", 1, "star", "4int", 0, 100, 40_000), row("fast", 1, "star", "4int", 0, 50, 80_000));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "fast"), "vanilla");
        assertEquals(2, r.rows().size());
        CompareReport.Row ping = r.rows().get(0);
        assertEquals("void ping()", ping.title());
        assertEquals(22.0, ping.cells().get("vanilla").medianUs(), 1e-9); // the outlier round 3 does not drag it
        assertEquals(3, ping.cells().get("vanilla").rounds());
        assertEquals(11.0, ping.cells().get("fast").medianUs(), 1e-9);
        assertEquals(50.0, r.savedPercent(ping, "fast"), 1e-9);
        assertEquals(0.0, r.savedPercent(ping, "vanilla"), 1e-9);
        CompareReport.Row star = r.rows().get(1);
        assertEquals("obj star(obj) 4int", star.title());
        assertEquals(50.0, r.savedPercent(star, "fast"), 1e-9); // twice the calls/s: half the time per call
        assertEquals(50.0, r.medianSaved("fast"), 1e-9);
        String text = r.text(Map.of());
        assertTrue(text.contains("11.0 (50%)"), text);
        assertTrue(text.contains("80000/s (50%)"), text);
        String md = r.markdown(Map.of("fast", "calls_remora=9,calls_jrmp=1,fallbacks=0"));
        assertTrue(md.contains("| void ping() | 22.0 | 11.0 (50%) |"), md);
        assertTrue(md.contains("| client calls remora/jrmp | - | 9/1 |"), md);
    }

    @Test
    void slowerConfigurationsShowNegativeSavings() {
        List<ResultRow> rows = List.of(row("vanilla", 1, "echo_obj", "float[]", 5000, 100, 0),
                row("agent-off", 1, "echo_obj", "float[]", 5000, 102, 0));
        CompareReport r = CompareReport.of(rows, List.of("vanilla", "agent-off"), "vanilla");
        assertEquals(-2.0, r.savedPercent(r.rows().get(0), "agent-off"), 1e-9);
        assertTrue(r.text(Map.of()).contains("102.0 (-2%)"));
        assertTrue(r.rows().get(0).title().endsWith("float[5000]"));
    }

    @Test
    void statsLinesParseAndSum() {
        Map<String, String> kv = CompareReport.parseStats("noise [remora] stats-csv calls_remora=3,calls_jrmp=4");
        assertEquals("3", kv.get("calls_remora"));
        assertEquals("calls_remora=5,calls_jrmp=4,fallbacks=1", CompareReport.sumStats(List.of(
                "[remora] stats-csv calls_remora=3,calls_jrmp=4,fallbacks=0",
                "[remora] stats-csv calls_remora=2,calls_jrmp=0,fallbacks=1")));
    }

    @Test
    void runReadsTheFolderAndWritesSummaries(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("raw"));
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(dir.resolve("raw/vanilla-r1.csv"), ResultRow.HEADER + "\n"
                + row("vanilla", 1, "ping", "-", 0, 20, 0).toCsv() + "\n");
        Files.writeString(dir.resolve("raw/agent-off-r1.csv"), ResultRow.HEADER + "\n"
                + row("agent-off", 1, "ping", "-", 0, 20.2, 0).toCsv() + "\n");
        Files.writeString(dir.resolve("logs/agent-off-r1-client.log"),
                "x\n[remora] stats-csv calls_remora=0,calls_jrmp=7,fallbacks=0\n");
        Files.writeString(dir.resolve("header.txt"), "placement: same\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, CompareReport.run(dir, "vanilla,agent-off,socket+fast", "vanilla",
                new PrintStream(out, true, StandardCharsets.UTF_8)));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("20.2 (-1%)"), text);
        assertTrue(text.contains("0/7"), text);
        String md = Files.readString(dir.resolve("summary.md"));
        assertTrue(md.contains("placement: same") && md.contains("| void ping() | 20.0 | 20.2 (-1%) |"), md);
        String csv = Files.readString(dir.resolve("summary.csv"));
        assertTrue(csv.contains("agent-off,ping,-,0,1,20.200"), csv);
        assertTrue(!csv.contains("socket+fast"), csv);
    }

    @Test
    void emptyFolderIsAClearError(@TempDir Path dir) throws Exception {
        assertThrows(java.io.IOException.class, () -> CompareReport.run(dir, "", "vanilla", System.out));
        Files.createDirectories(dir.resolve("raw"));
        Exception e = assertThrows(java.io.IOException.class, () -> CompareReport.run(dir, "", "vanilla",
                System.out));
        assertTrue(e.getMessage().contains("no result rows"), e.getMessage());
    }

    @Test
    void linesThatAreNotResultRowsAreSkippedAndNamed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("raw"));
        ResultRow v = new ResultRow("vanilla", 1, "ping", "-", 0, 10, 40, 40, 40, 0, Double.NaN);
        ResultRow a = new ResultRow("socket+fast", 1, "ping", "-", 0, 10, 20, 20, 20, 0, Double.NaN);
        java.nio.file.Files.writeString(dir.resolve("raw/vanilla-r1.csv"), v.toCsv() + "\n");
        java.nio.file.Files.writeString(dir.resolve("raw/socket+fast-r1.csv"), "2026-11-23 18:27:58\n"
                + "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):\n\n"
                + "\"main\" #1 prio=5 os_prio=0 cpu=7825.71ms elapsed=32.55s tid=0x00007f\n" + a.toCsv() + "\n");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CompareReport.run(dir, "vanilla,socket+fast", "vanilla",
                new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        String printed = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(printed.contains("note: skipped 3 line(s) of") && printed.contains("2026-11-23 18:27:58"), printed);
        assertTrue(printed.contains("20.0 (50%)"), "the rows around the dump still count: " + printed);
    }
}
