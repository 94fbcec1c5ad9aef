package dev.remora.agent;

import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import dev.remora.agent.hooks.HookCheck;
import dev.remora.agent.hooks.HookPoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar remora-agent.jar}: version, properties with their defaults and current values, and a self-check
 * of this JDK. Also {@code --validate k=v ...} (exit 0 when that configuration is built and valid; used by
 * scripts/compare.sh) and {@code --properties-markdown} (the README's table).
 */
public final class SelfCheck {

    private SelfCheck() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--validate")) {
            System.exit(validate(args));
        }
        if (args.length > 0 && args[0].equals("--properties-markdown")) {
            System.out.print(Property.markdownTable());
            return;
        }
        if (args.length > 0) {
            System.out.println("usage: java -jar remora-agent.jar [--validate remora.k=v ...|--properties-markdown]");
            System.exit(2);
        }
        System.exit(report() ? 0 : 1);
    }

    static int validate(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                problems.add("'" + args[i] + "' is not remora.key=value");
            } else {
                given.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
        }
        RemoraConfig c = RemoraConfig.from(given, problems);
        if (c.problems().isEmpty()) {
            System.out.println("ok");
            return 0;
        }
        System.out.println(String.join("; ", c.problems()));
        return 1;
    }

    private static boolean report() {
        System.out.println("Remora " + version() + " - makes unmodified Java RMI applications fast");
        System.out.println("Use: java -javaagent:remora-agent.jar ... (server and client JVMs)");
        System.out.println();
        RemoraConfig config = RemoraConfig.from(System.getProperties(), null);
        System.out.println("Properties (-Dname=value):");
        for (Property p : Property.values()) {
            String now = config.get(p);
            System.out.printf("  %-24s default %-11s%s%n", p.key(), p.defaultValue(),
                    now.equals(p.defaultValue()) ? "" : " now " + now);
            System.out.printf("  %-24s %s%n", "", p.allowedText());
        }
        for (String problem : config.problems()) {
            System.out.println("  problem: " + problem);
        }
        System.out.println();
        System.out.println("Self-check:");
        System.out.println("  JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + ") at "
                + System.getProperty("java.home"));
        boolean ok = config.problems().isEmpty();
        for (HookPoint h : HookPoint.ALL) {
            String why = why(h);
            System.out.println("  hook " + (why == null ? "found   " : "MISSING ") + h.describe()
                    + (why == null ? "" : ": " + why));
            ok &= why == null;
        }
        int fastFound = 0;
        for (HookPoint h : HookPoint.OOS_FAST) {
            String why = why(h);
            if (why == null) {
                fastFound++;
            } else {
                System.out.println("  hook MISSING " + h.describe() + ": " + why);
            }
        }
        System.out.println("  remora.oos=fast: " + fastFound + " of " + HookPoint.OOS_FAST.size()
                + " hook points found" + (fastFound == HookPoint.OOS_FAST.size() ? "" : " (it would stay off)"));
        System.out.println("  libfabric: " + NativeCheck.describe());
        System.out.println(ok ? "Remora can run on this JVM." : "Remora would leave this JVM on plain RMI (see above).");
        return ok;
    }

    /** Why the hook point is missing, as the installer would find it, or null. */
    private static String why(HookPoint h) {
        java.util.List<String> missing = HookCheck.missing(java.util.List.of(h));
        return missing.isEmpty() ? null : missing.get(0);
    }

    static String version() {
        String v = SelfCheck.class.getPackage().getImplementationVersion();
        return v == null ? "(development build)" : v;
    }
}
