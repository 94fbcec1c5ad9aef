package dev.remora.it;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Starts a real JVM (JDK 17 or 25) running a main class from the test class path, with or without
 * {@code -javaagent:remora-agent.jar}, and collects its output. Output goes to files so a chatty child never blocks
 * on a full pipe; every wait is bounded.
 */
public final class Jvm implements AutoCloseable {
    /** The JDKs the integration tests run on. */
    public enum Jdk {
        JDK17("/usr/lib/jvm/java-17-openjdk-amd64"),
        JDK25(System.getProperty("it.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

        private final String home;

        Jdk(String home) {
            this.home = home;
        }

        public Path java() {
            return Paths.get(home, "bin", "java");
        }

        /** Skips the calling test with a message where this JDK is not installed. */
        public Path require() {
            Assumptions.assumeTrue(Files.isExecutable(java()), () -> name() + " not found at " + home
                    + ": install it (scripts/setup.sh does) or set -Dit.jdk25=PATH; skipping");
            return java();
        }
    }

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final List<String> command;

    private Jvm(Process process, Path stdout, Path stderr, List<String> command) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.command = command;
    }

    public static Path agentJar() {
        return requiredFile("it.agentJar", "../agent/target/remora-agent.jar",
                "build it with mvn -pl agent -am package -DskipTests");
    }

    /**
     * The file that system property {@code property} names (else {@code otherwise}), absolute; a missing one fails
     * with {@code howToMake}.
     */
    public static Path requiredFile(String property, String otherwise, String howToMake) {
        Path file = Paths.get(System.getProperty(property, otherwise));
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file.toAbsolutePath() + " is missing: " + howToMake);
        }
        return file.toAbsolutePath();
    }

    /** The agent option, optionally with agent arguments. */
    public static String javaagent(String agentArgs) {
        return "-javaagent:" + agentJar() + (agentArgs == null ? "" : "=" + agentArgs);
    }

    /**
     * Options of an RMI JVM on loopback ({@code java.rmi.server.hostname=127.0.0.1}): with the agent and
     * {@code remora.stats=true} (so that {@link #stat} can read its counters) or without it, then {@code more}.
     */
    public static List<String> rmiOptions(boolean agent, String... more) {
        List<String> l = new ArrayList<>();
        if (agent) {
            l.add(javaagent(null));
            l.add("-Dremora.stats=true");
        }
        l.add("-Djava.rmi.server.hostname=127.0.0.1");
        l.addAll(Arrays.asList(more));
        return l;
    }

    /**
     * Compiles every {@code .java} file under {@code sources} (test sources kept off the test class path: a module, a
     * plugin) into {@code out}, for release 17; fails the test with javac's arguments if javac fails.
     */
    public static void compile(Path sources, Path out) throws IOException {
        List<String> args = new ArrayList<>(List.of("--release", "17", "-d", out.toString()));
        try (java.util.stream.Stream<Path> s = Files.walk(sources)) {
            s.map(Path::toString).filter(p -> p.endsWith(".java")).forEach(args::add);
        }
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(new String[0]));
        if (rc != 0) {
            throw new AssertionError("javac failed (" + rc + "): " + args);
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * @param jvmOptions options before the main class (-javaagent, -D...)
     */
    public static Jvm start(Jdk jdk, List<String> jvmOptions, String mainClass, String... args) throws IOException {
        return start(jdk, jvmOptions, List.of(), mainClass, args);
    }

    /** As {@link #start(Jdk, List, String, String...)}, with {@code libraries} (jars) on the class path too. */
    public static Jvm start(Jdk jdk, List<String> jvmOptions, List<Path> libraries, String mainClass, String... args)
            throws IOException {
        List<String> cmd = command(jdk, jvmOptions);
        cmd.add("-cp");
        // Only the application's classes, its libraries and Remora's API jar, as an application ships them: the child
        // must not see Remora's agent or Byte Buddy except through -javaagent.
        String api = System.getProperty("it.apiJar");
        StringBuilder cp = new StringBuilder(System.getProperty("it.appClasses", "target/test-classes"));
        for (Path lib : libraries) {
            cp.append(File.pathSeparator).append(lib);
        }
        cmd.add(cp + (api == null ? "" : File.pathSeparator + api));
        cmd.add(mainClass);
        cmd.addAll(Arrays.asList(args));
        return launch(cmd);
    }

    /**
     * A modular application: {@code java -p modulePath -m module/class args}, nothing on the class path (so the boot
     * layer holds only what that module requires, and {@code jvmOptions}' {@code --add-modules}).
     */
    public static Jvm startModule(Jdk jdk, List<String> jvmOptions, Path modulePath, String moduleAndClass,
            String... args) throws IOException {
        List<String> cmd = command(jdk, jvmOptions);
        cmd.add("-p");
        cmd.add(modulePath.toString());
        cmd.add("-m");
        cmd.add(moduleAndClass);
        cmd.addAll(Arrays.asList(args));
        return launch(cmd);
    }

    /** {@code jdk}'s java, then the options every test JVM gets, then {@code jvmOptions}. */
    private static List<String> command(Jdk jdk, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.require().toString());
        cmd.add("-Xshare:auto");
        cmd.addAll(jvmOptions);
        return cmd;
    }

    private static Jvm launch(List<String> cmd) throws IOException {
        Path dir = Files.createTempDirectory("remora-it");
        dir.toFile().deleteOnExit();
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return new Jvm(pb.start(), out, err, cmd);
    }

    /** Waits until stdout has a line equal to {@code line}, or fails naming what the JVM printed. */
    public Jvm awaitLine(String line, long seconds) throws Exception {
        return await(() -> stdoutLines().contains(line), "'" + line + "' on stdout", seconds);
    }

    /** Waits until stderr contains {@code text} (a log line of Remora's), or fails naming what the JVM printed. */
    public Jvm awaitStderr(String text, long seconds) throws Exception {
        return await(() -> stderr().contains(text), "'" + text + "' on stderr", seconds);
    }

    private interface Check {
        boolean holds() throws IOException;
    }

    /** Polls {@code check} every 20 ms; fails naming {@code what} once the JVM exits, or after {@code seconds}. */
    private Jvm await(Check check, String what, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (check.holds()) {
                return this;
            }
            if (!process.isAlive()) {
                throw new AssertionError("JVM exited (" + process.exitValue() + ") before " + what + "\n"
                        + describe());
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no " + what + " within " + seconds + " s\n" + describe());
    }

    /** Waits for exit; kills and fails after {@code seconds}. */
    public int waitFor(long seconds) throws Exception {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            removeShmRegionsOf(process.pid());
            throw new AssertionError("JVM still running after " + seconds + " s, killed\n" + describe());
        }
        return process.exitValue();
    }

    /** Writes a line to the JVM's standard input. */
    public void send(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** SIGTERM (shutdown hooks run), then waits. */
    public int stop() throws Exception {
        process.destroy();
        return waitFor(20);
    }

    public List<String> stdoutLines() throws IOException {
        return Files.readAllLines(stdout, StandardCharsets.UTF_8);
    }

    public String stdout() throws IOException {
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }

    public String stderr() throws IOException {
        return Files.readString(stderr, StandardCharsets.UTF_8);
    }

    public long pid() {
        return process.pid();
    }

    /** The value of {@code key} in the {@code [remora] stats-csv} line on stderr, or -1 when absent. */
    public long stat(String key) throws IOException {
        for (String line : stderr().split("\n")) {
            if (line.startsWith("[remora] stats-csv ")) {
                for (String kv : line.substring("[remora] stats-csv ".length()).split(",")) {
                    int eq = kv.indexOf('=');
                    if (kv.substring(0, eq).equals(key)) {
                        return Long.parseLong(kv.substring(eq + 1).trim());
                    }
                }
            }
        }
        return -1;
    }

    public String describe() {
        StringBuilder sb = new StringBuilder("command: ").append(String.join(" ", command)).append('\n');
        try {
            sb.append("stdout:\n").append(stdout()).append("stderr:\n").append(stderr());
        } catch (IOException e) {
            sb.append("(output unreadable: ").append(e).append(')');
        }
        return sb.toString();
    }

    @Override
    public void close() {
        boolean killed = process.isAlive();
        if (killed) {
            process.destroyForcibly();
        }
        try {
            if (process.waitFor(10, TimeUnit.SECONDS) && killed) {
                removeShmRegionsOf(process.pid());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Output files stay readable after close (tests read them); they go when the test JVM exits.
        for (Path p : new Path[] {stdout, stderr}) {
            File f = p.toFile();
            f.deleteOnExit();
            f.getParentFile().deleteOnExit();
        }
    }

    /**
     * Removes the shm provider's region files of a process this test killed (SIGKILL skips libfabric's cleanup and
     * the agent's exit hook, so each would keep 16 MB of /dev/shm, that is RAM, until reboot). Names start with the
     * creator's PID; only call this once {@code pid} is dead.
     */
    static void removeShmRegionsOf(long pid) {
        try (java.nio.file.DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/dev/shm"), pid + ":*")) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException ignored) {
            // no /dev/shm, or already gone: nothing to clean
        }
    }
}
