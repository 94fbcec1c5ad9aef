package remora.it.plugin;

import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The client's side of a plugin: calls both servers' plugins with its own classes; returns what it saw. */
public final class PluginClient implements Function<Integer, List<String>> {
    @Override
    public List<String> apply(Integer port) {
        List<String> seen = new ArrayList<>();
        String me = getClass().getClassLoader().getName();
        try {
            Registry r = LocateRegistry.getRegistry(port);
            for (String name : new String[] {"calc1", "calc2"}) {
                Calc c = (Calc) r.lookup(name);
                String at = me + " -> " + name + "(" + c.where() + "): ";
                for (int i = 0; i < 3; i++) {
                    try {
                        seen.add(at + c.add(new Value(1), new Value(i)));
                    } catch (Exception e) {
                        seen.add(at + "add threw " + e);
                    }
                    try {
                        seen.add(at + c.any(new Value(i)));
                        seen.add(at + c.any("s" + i));
                    } catch (Exception e) {
                        seen.add(at + "any threw " + e);
                    }
                }
            }
        } catch (Exception | Error e) {
            seen.add(me + " failed: " + e);
        }
        return seen;
    }
}
