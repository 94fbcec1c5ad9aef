#!/usr/bin/env bash
# Writes agent/src/main/resources/META-INF/remora/first-calls.classes, the classes remora.preload loads ahead of a
# JVM's first Remora calls (dev.remora.agent.Preload). From a JVM pair's class-load logs: a server that exports an
# object, a client that calls it with an object of a few fields and gets an int[] back, then a void method, both
# with the agent (JDK on PATH or JAVA_HOME); kept: the classes either JVM loaded after its router was made, named
# (no hidden or generated class), less the JDK classes the same pair loads without the agent. Run it after changing
# what a call goes through; PreloadListIT fails when a listed class no longer exists.
#   scripts/lib/first-calls-classes.sh [agent.jar]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
AGENT="${1:-$ROOT/agent/target/remora-agent.jar}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
OUT="$ROOT/agent/src/main/resources/META-INF/remora/first-calls.classes"
[ -f "$AGENT" ] || { echo "first-calls-classes.sh: no agent jar at $AGENT (mvn -B -q -ntp install -DskipTests)" >&2; exit 2; }
W="$(mktemp -d "${TMPDIR:-/tmp}/remora-firstcalls.XXXXXX")"
trap 'rm -rf "$W"' EXIT
cat >"$W/FirstCalls.java" <<'EOF'
import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

public class FirstCalls {
    public interface Peer extends Remote {
        int[] put(Item item) throws RemoteException;

        void note(int k, int[] row) throws RemoteException;
    }

    public static final class Item implements Serializable {
        private static final long serialVersionUID = 1L;
        final int id;
        final double weight;
        final String name;
        final int[] values;

        Item(int id, double weight, String name, int[] values) {
            this.id = id;
            this.weight = weight;
            this.name = name;
            this.values = values;
        }
    }

    static final class Impl implements Peer {
        public int[] put(Item item) {
            return item.values.clone();
        }

        public void note(int k, int[] row) {
            if (row.length != k) {
                throw new IllegalArgumentException("row of " + row.length);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        int port = Integer.parseInt(args[1]);
        if (args[0].equals("server")) {
            Registry r = LocateRegistry.createRegistry(port);
            Impl impl = new Impl();
            r.rebind("peer", UnicastRemoteObject.exportObject(impl, 0));
            System.out.println("ready");
            System.out.flush();
            System.in.read();
            System.exit(0);
        }
        Peer p = (Peer) LocateRegistry.getRegistry("127.0.0.1", port).lookup("peer");
        for (int i = 0; i < 3; i++) {
            if (p.put(new Item(i, 0.5 * i, "item" + i, new int[] {i, i + 1})).length != 2) {
                throw new AssertionError("wrong answer");
            }
            p.note(i, new int[i]); // a void method: its first call counts its caller's waits (Marshal.Waits)
        }
    }
}
EOF
"$JAVAC" --release 17 -d "$W" "$W/FirstCalls.java"
pair() { # $1: tag, $2...: JVM options
    local tag="$1"; shift
    local port=$((20000 + RANDOM % 20000))
    coproc SRV { "$JAVA" "$@" -Xlog:class+load:file="$W/$tag-server.log" -cp "$W" FirstCalls server "$port"; }
    read -r _ <&"${SRV[0]}"
    "$JAVA" "$@" -Xlog:class+load:file="$W/$tag-client.log" -cp "$W" FirstCalls client "$port"
    echo >&"${SRV[1]}"
    wait "$SRV_PID" || true
}
pair plain
pair agent -javaagent:"$AGENT" -Dremora.transport=socket -Dremora.preload=false  # the list itself would be loaded
python3 - "$W" "$OUT" <<'PY'
import re, sys
w, out = sys.argv[1:3]
def names(path, after_router):
    seen, started = [], not after_router
    for line in open(path):
        m = re.search(r"\] (\S+) source: (.*)$", line)
        if not m:
            continue
        name, source = m.groups()
        if not started:
            started = name.startswith("dev.remora.rmi.RemoraRouter")
            if not started:
                continue
        spun = "/" in name or "$$" in name or "$Species_" in name  # hidden, lambda, method handle species
        if spun or name.startswith(("FirstCalls", "jdk.internal.reflect.Generated", "jdk.proxy", "dev.remora.agent.")):
            continue
        seen.append(name)
    return seen
plain = set(names(f"{w}/plain-server.log", False)) | set(names(f"{w}/plain-client.log", False))
keep = []
for side in ("client", "server"):
    for n in names(f"{w}/agent-{side}.log", True):
        if n not in keep and (n.startswith("dev.remora.") or n not in plain):
            keep.append(n)
with open(out, "w") as f:
    f.write("# Classes remora.preload loads ahead of a JVM's first Remora calls (dev.remora.agent.Preload).\n"
            "# Made by scripts/lib/first-calls-classes.sh; load order kept.\n")
    f.write("\n".join(keep) + "\n")
print(f"{out}: {len(keep)} classes ({sum(n.startswith('dev.remora.') for n in keep)} of Remora's)")
PY
