package dev.remora.bench.rmi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small command-line parser: {@code --name value}, {@code --name=value} and boolean {@code --flag}. Every option
 * must be declared with a default; an unknown option, a missing value or a malformed number is an
 * {@link IllegalArgumentException} whose message names the option and what it accepts.
 */
public final class Options {

    private final Map<String, String> declared = new LinkedHashMap<>();
    private final Map<String, String> help = new LinkedHashMap<>();
    private final Map<String, Boolean> flags = new LinkedHashMap<>();
    private final Map<String, String> values = new LinkedHashMap<>();

    /** Declares {@code --name value} with its default and a one-line description. */
    public Options option(String name, String defaultValue, String description) {
        declared.put(name, defaultValue);
        help.put(name, description);
        return this;
    }

    /** Declares a boolean {@code --name} (false unless given). */
    public Options flag(String name, String description) {
        flags.put(name, Boolean.FALSE);
        help.put(name, description);
        return this;
    }

    /** Parses {@code args}; returns this. */
    public Options parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "': options start with --\n" + usage());
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flags.containsKey(name)) {
                if (value != null && !value.equals("true") && !value.equals("false")) {
                    throw new IllegalArgumentException("--" + name + " is a flag: give it alone or as --" + name
                            + "=true|false");
                }
                flags.put(name, value == null || Boolean.parseBoolean(value));
                continue;
            }
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("unknown option --" + name + "\n" + usage());
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value (" + help.get(name) + ")");
                }
                value = args[++i];
            }
            values.put(name, value);
        }
        return this;
    }

    public String get(String name) {
        if (!declared.containsKey(name)) {
            throw new IllegalStateException("option --" + name + " was never declared");
        }
        return values.getOrDefault(name, declared.get(name));
    }

    public boolean isSet(String name) {
        return values.containsKey(name) || Boolean.TRUE.equals(flags.get(name));
    }

    public boolean flag(String name) {
        Boolean b = flags.get(name);
        if (b == null) {
            throw new IllegalStateException("flag --" + name + " was never declared");
        }
        return b;
    }

    public int getInt(String name, int min, int max) {
        String v = get(name);
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number in " + min + ".." + max
                    + ", got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("--" + name + " must be in " + min + ".." + max + ", got " + n);
        }
        return n;
    }

    /** Comma-separated positive ints, e.g. {@code 50,5000}. */
    public int[] getInts(String name) {
        String[] parts = get(name).split(",");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                out[i] = -1;
            }
            if (out[i] <= 0) {
                throw new IllegalArgumentException("--" + name + " takes positive whole numbers separated by commas,"
                        + " got '" + get(name) + "'");
            }
        }
        return out;
    }

    /** One line per option with its default. */
    public String usage() {
        StringBuilder sb = new StringBuilder("options:\n");
        for (Map.Entry<String, String> e : help.entrySet()) {
            String name = e.getKey();
            String left = flags.containsKey(name) ? "--" + name : "--" + name + " <" + declared.get(name) + ">";
            sb.append(String.format("  %-34s %s%n", left, e.getValue()));
        }
        return sb.toString();
    }
}
