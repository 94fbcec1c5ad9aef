package dev.remora.fabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting helper JVMs and commands for the multi-process tests; every process is bounded in time. */
final class ChildJvm {
    private ChildJvm() {}

    /** This module's classes and test classes (set by the pom), without the test framework. */
    static String classPath() {
        return System.getProperty("fabric.test.classpath", System.getProperty("java.class.path"));
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Command prefix + java -cp CP mainClass args. */
    static List<String> javaCommand(List<String> prefix, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(java(), "--enable-native-access=ALL-UNNAMED", "-cp", classPath(), mainClass));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }

    /** Runs a command to completion; returns exit status and merged output. */
    static Result run(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (out) {
                        out.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        reader.start();
        boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done && p.destroyForcibly().waitFor(5, TimeUnit.SECONDS)) {
            Fabric.removeShmRegionsOf(p.pid());
        }
        reader.join(5_000);
        synchronized (out) {
            return new Result(done ? p.exitValue() : -1, out.toString(), !done);
        }
    }

    static final class Result {
        final int status;
        final String output;
        final boolean timedOut;

        Result(int status, String output, boolean timedOut) {
            this.status = status;
            this.output = output;
            this.timedOut = timedOut;
        }

        @Override
        public String toString() {
            return "exit " + status + (timedOut ? " (timed out)" : "") + ":\n" + output;
        }
    }

    /** An echo server JVM (FabricPingPong --serve) connected to a local endpoint. */
    static final class EchoServer implements AutoCloseable {
        final Process process;
        final long peer;

        EchoServer(FabricEndpoint client, List<String> prefix, String provider) throws IOException {
            process = new ProcessBuilder(javaCommand(prefix, "dev.remora.fabric.tools.FabricPingPong", "--serve",
                    "-p", provider)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line = in.readLine();
            if (line == null || !line.startsWith("ADDR ")) {
                process.destroyForcibly();
                throw new IOException("echo server did not start, said: " + line);
            }
            peer = client.insertPeer(HexFormat.of().parseHex(line.split(" ")[1]));
            PrintStream out = new PrintStream(process.getOutputStream(), true, StandardCharsets.US_ASCII);
            out.println("ADDR " + HexFormat.of().formatHex(client.address()));
        }

        @Override
        public void close() throws InterruptedException {
            if (process.destroyForcibly().waitFor(5, TimeUnit.SECONDS)) {
                Fabric.removeShmRegionsOf(process.pid());
            }
        }
    }
}
