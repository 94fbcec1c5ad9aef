package dev.remora.agent.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The values in force, read once at install from system properties (and the agent argument string,
 * {@code -javaagent:remora-agent.jar=remora.stats=true,remora.log=debug}, which wins over system properties).
 * Immutable; problems are collected, not thrown, so the installer decides what a bad value does.
 */
public final class RemoraConfig {

    private final Map<Property, String> values;
    private final List<String> problems;

    private RemoraConfig(Map<Property, String> values, List<String> problems) {
        this.values = values;
        this.problems = Collections.unmodifiableList(problems);
    }

    public static RemoraConfig defaults() {
        return from(new Properties(), null);
    }

    /**
     * @param system the system properties
     * @param agentArgs the agent's argument string: comma-separated {@code key=value} pairs, may be null
     */
    public static RemoraConfig from(Properties system, String agentArgs) {
        Map<String, String> given = new java.util.LinkedHashMap<>();
        for (String name : system.stringPropertyNames()) {
            if (name.startsWith("remora.")) {
                given.put(name, system.getProperty(name));
            }
        }
        List<String> problems = new ArrayList<>();
        if (agentArgs != null && !agentArgs.isBlank()) {
            for (String pair : agentArgs.split(",")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    problems.add("agent argument '" + pair.trim() + "' is not key=value;"
                            + " use -javaagent:remora-agent.jar=remora.stats=true,remora.log=debug");
                    continue;
                }
                String key = pair.substring(0, eq).trim();
                given.put(key.startsWith("remora.") ? key : "remora." + key, pair.substring(eq + 1).trim());
            }
        }
        return from(given, problems);
    }

    /** From explicit {@code remora.*} pairs (used by {@code --validate} and tests). */
    public static RemoraConfig from(Map<String, String> given, List<String> problems) {
        Map<Property, String> values = new EnumMap<>(Property.class);
        for (Property p : Property.values()) {
            values.put(p, p.defaultValue());
        }
        List<String> all = new ArrayList<>(problems);
        for (Map.Entry<String, String> e : given.entrySet()) {
            Property p = Property.forKey(e.getKey());
            if (p == null) {
                all.add("unknown property " + e.getKey() + "; known: " + knownKeys());
                continue;
            }
            String reason = p.check(e.getValue());
            if (reason != null) {
                all.add(p.key() + "=" + e.getValue() + ": " + reason);
            } else {
                values.put(p, e.getValue().trim());
            }
        }
        return new RemoraConfig(values, all);
    }

    private static String knownKeys() {
        StringBuilder sb = new StringBuilder();
        for (Property p : Property.values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(p.key());
        }
        return sb.toString();
    }

    /** One line each; empty when every value given was usable. */
    public List<String> problems() {
        return problems;
    }

    public String get(Property p) {
        return values.get(p);
    }

    public boolean flag(Property p) {
        return Boolean.parseBoolean(values.get(p));
    }

    public int integer(Property p) {
        return Integer.parseInt(values.get(p).trim());
    }

    public boolean enabled() {
        return flag(Property.ENABLED);
    }

    public boolean strict() {
        return flag(Property.STRICT);
    }
}
