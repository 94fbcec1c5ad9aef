package remora.it.plugin;

import java.util.List;

/** The server's side of a plugin. */
public final class CalcImpl implements Calc {
    @Override
    public Value add(Value a, Value b) {
        return new Value(a.n + b.n);
    }

    @Override
    public Object any(Object o) {
        return o instanceof Value ? new Value(((Value) o).n * 10) : List.of(o, new Value(7));
    }

    @Override
    public String where() {
        return getClass().getClassLoader().getName();
    }
}
