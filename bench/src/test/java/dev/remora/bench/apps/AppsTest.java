package dev.remora.bench.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The apps compute right answers, and their checks see a wrong one. One rank in-process (no RMI) per app, and SOR,
 * ASP, Water and Hamming for real: two rank JVMs each through the {@link Launcher}, plain RMI, tiny size (a few
 * seconds; SOR's, Water's and Hamming's checks fetch rank 1's result by RMI).
 */
class AppsTest {

    /** One rank in-process, its own peer set as {@link Rank} does, set up, run if {@code run}; its check's verdict. */
    private static String checkOneRank(App app, String overrides, boolean run) throws Exception {
        Ctx ctx = new Ctx(0, 1, Rank.params(app, "tiny", overrides));
        ctx.peers[0] = app.peer(ctx);
        app.setup(ctx);
        if (run) {
            app.run(ctx);
        }
        return app.check(ctx);
    }

    @Test
    void eachAppAloneIsRightAndItsCheckSeesACorruptedAnswer() throws Exception {
        for (String name : Apps.NAMES.split(",")) {
            assertNull(checkOneRank(App.byName(name), "", true), name);
        }
        // not run: the initial grid is not the relaxed one
        assertNotNull(checkOneRank(new Sor(), "", false));
        assertNotNull(checkOneRank(new Radix(), "", false), "unsorted keys pass the check");
        assertNotNull(checkOneRank(new Asp(), "", false), "direct edges pass as shortest paths");
        assertNotNull(checkOneRank(new Leq(), "iters=3", true), "3 Jacobi iterations pass as a solution");
        assertNotNull(checkOneRank(new Water(), "", false), "the initial molecules pass as moved ones");
        assertNotNull(checkOneRank(new Hamming(), "", false), "an empty sequence passes");
    }

    @Test
    void watersCheckSeesOneBitOffAndFollowsTheRanksOrderOfSums() throws Exception {
        Water w = new Water();
        Ctx ctx = new Ctx(0, 1, Rank.params(w, "tiny", ""));
        ctx.peers[0] = w.peer(ctx);
        w.setup(ctx);
        w.run(ctx);
        assertNull(w.check(ctx));
        w.vel[7] = Math.nextUp(w.vel[7]);
        assertNotNull(w.check(ctx), "a velocity one bit off passes");
        // the reference sums as the ranks do: 3 ranks' order is not 1 rank's, to the bit, after a few hundred steps
        double[][] one = Water.sequentially(64, 400, new int[] {0, 64});
        double[][] three = Water.sequentially(64, 400, new int[] {0, 21, 42, 64});
        assertTrue(!java.util.Arrays.equals(one[0], three[0]), "the order of sums made no difference");
    }

    @Test
    void appClassesReferenceOnlyTheJdkAndTheirOwnPackage() throws Exception {
        // compare.sh runs the ranks with only this package's classes on the class path, as StandaloneAppTest does
        Path dir = Path.of(Rank.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/remora/bench/apps");
        int checked = 0;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                checked++;
                String pool = new String(java.nio.file.Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                for (int at = pool.indexOf("dev/remora/"); at >= 0; at = pool.indexOf("dev/remora/", at + 1)) {
                    assertTrue(pool.startsWith("dev/remora/bench/apps/", at), f + " names "
                            + pool.substring(at, Math.min(pool.length(), at + 40)));
                }
                assertTrue(!pool.contains("org/jfree"), f + " names JFreeChart");
            }
        }
        assertTrue(checked >= 10, "expected the apps' classes in " + dir);
    }

    @Test
    void aMissingRankLineIsIncompleteNotWrong() {
        String line = "app-rank app=sor rank=0 ranks=2 size=comm compute_ms=10 own_ms=9 comm_ms=5 call_ms=4 calls=3"
                + " bytes=30 check_ms=1 cpu_ms=100 check=ok";
        String wrong = line.replace("rank=0", "rank=1").replace("check=ok", "check=wrong");
        Map<String, String> both = Launcher.fields(Launcher.summary("sor", 2, "comm", 1_000_000L,
                java.util.List.of(line, line.replace("rank=0", "rank=1")), 0));
        assertEquals("ok", both.get("check"));
        assertEquals("4.000", both.get("call_ms"));
        assertEquals("incomplete", Launcher.fields(Launcher.summary("sor", 2, "comm", 1_000_000L,
                java.util.List.of(line), 0)).get("check"));
        assertEquals("wrong", Launcher.fields(Launcher.summary("sor", 2, "comm", 1_000_000L,
                java.util.List.of(line, wrong), 1)).get("check"));
    }

    @Test
    void theReportNamesTheOnewayCandidatesTheRanksStatsNamed(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        String line = "[remora] stats: one-way candidate dev.remora.bench.apps.Sor$Peer#putRow(int,int,double[]):"
                + " 5000 calls, 612 ms waiting (122 us a call)";
        java.nio.file.Files.writeString(dir.resolve("auto-r1-sor-comm-2-rank0.log"), "x\n" + line + "\n");
        java.nio.file.Files.writeString(dir.resolve("auto-r2-sor-comm-4-rank3.log"), line + "\n");
        java.nio.file.Files.writeString(dir.resolve("vanilla-r1-asp-comm-2-rank0.log"), "nothing\n");
        java.nio.file.Files.writeString(dir.resolve("auto-r1-sor-comm-2.out"), line + "\n"); // not a rank's log
        Map<String, java.util.Set<String>> c = AppsReport.onewayCandidates(dir);
        assertEquals(Map.of("sor", java.util.Set.of("dev.remora.bench.apps.Sor$Peer#putRow(int,int,double[])")), c);
        AppsReport.Run run = new AppsReport.Run("auto", 1, "sor", "comm", 2, 1, 1, 1, 1, 1, 1, true, 1);
        String report = AppsReport.report(java.util.List.of(run), java.util.List.of("auto"), "auto", dir);
        assertTrue(report.contains(
                "one-way (`remora.async`): `dev.remora.bench.apps.Sor$Peer#putRow(int,int,double[])`."), report);
    }

    @Test
    void pairedRatiosDivideEachRunByTheBaselinesRunOfTheSameRound() {
        java.util.List<AppsReport.Run> runs = new java.util.ArrayList<>();
        // vanilla drifts from fast to slow over the rounds; auto ran in rounds 1, 2 and 4, so only two pairs count
        double[] vanilla = {100, 200, 400};
        for (int r = 1; r <= 3; r++) {
            runs.add(new AppsReport.Run("vanilla", r, "sor", "comm", 2, vanilla[r - 1], 10 * r, 1, 1000, 1, 1, true,
                    1));
        }
        runs.add(new AppsReport.Run("auto", 1, "sor", "comm", 2, 90, 5, 1, 1100, 1, 1, true, 1));
        runs.add(new AppsReport.Run("auto", 2, "sor", "comm", 2, 180, 20, 1, 1100, 1, 1, true, 1));
        runs.add(new AppsReport.Run("auto", 4, "sor", "comm", 2, 50, 50, 1, 50, 1, 1, true, 1)); // no vanilla run
        String t = AppsReport.paired(java.util.List.of(runs), java.util.List.of("vanilla", "auto"), "vanilla");
        // wall: 0.9 and 0.9; compute: 5/10 and 20/20 -> 0.75; CPU 1.1 and 1.1; two pairs
        assertTrue(t.contains("| sor | comm | 2 | 0.90 / 0.75 / 1.10 (2) |"), t);
        assertTrue(t.contains("| app | size | ranks | auto |"), t);
    }

    @Test
    void appsWithTwoRankJvms() throws Exception {
        String cp = Path.of(Rank.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        for (String app : new String[] {"sor", "asp", "water", "hamming"}) {
            PrintStream old = System.out;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int rc;
            try {
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
                rc = Launcher.run(new String[] {"--app", app, "--ranks", "2", "--size", "tiny", "--cp", cp,
                        "--cpus", "none", "--timeout-s", "60", "--jvm-opts", "-Xmx128m -XX:TieredStopAtLevel=1"});
            } finally {
                System.setOut(old);
            }
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, text);
            String run = text.lines().filter(l -> l.startsWith("app-run ")).findFirst().orElse("");
            Map<String, String> f = Launcher.fields(run);
            assertEquals("ok", f.get("check"), text);
            assertEquals(2, text.lines().filter(l -> l.startsWith("app-rank ")).count(), text);
            assertTrue(Long.parseLong(f.get("calls")) > 0, text);
            double inCalls = Double.parseDouble(f.get("call_ms"));
            assertTrue(inCalls >= 0 && inCalls <= Double.parseDouble(f.get("comm_ms")), text);
        }
    }
}
