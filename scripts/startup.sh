#!/usr/bin/env bash
# What the agent costs a JVM that never makes a remote call (issue 17): a hello-world run plain and with
# -javaagent:remora-agent.jar, in pairs, on JDK 17 and 25. A benchmark to read, not a test: it fails only when it
# cannot run. Builds nothing: give the agent jar, or build it first
# (mvn -B -q -ntp -pl agent -am install -Dmaven.test.skip=true).
#
#   scripts/startup.sh                   10 pairs per JDK, agent/target/remora-agent.jar
#   scripts/startup.sh -n 30 --agent-arg remora.log=debug
#   scripts/startup.sh --rmi             an RMI server instead: exports an object, calls it, System.exit(0)
#   scripts/startup.sh --help
#
# What is measured, per run (one process; the java launcher runs the JVM inside it, so its rusage is the JVM's):
#   wall   from fork to the process being reaped (Python's CLOCK_MONOTONIC around the child)
#   cpu    user + system CPU time of the process (wait4 rusage), all threads: JIT, GC, the agent's
#   rss    peak resident set (rusage ru_maxrss)
#   main   from fork to the first line of Hello.main (its System.nanoTime(), CLOCK_MONOTONIC on Linux, as Python's)
#   exit   from the last line of Hello.main (a System.nanoTime() stamp printed as it returns) to the process being
#          reaped: DestroyJavaVM, shutdown hooks, JVM teardown and process exit. Fork and reap cost the same in
#          both runs of a pair, so the difference is what the agent adds to exit.
# Each pair runs plain and agent back to back, the order alternating from pair to pair (ABBA) and the JDKs
# interleaved, so drift on this shared 2-vCPU machine hits both alike. Printed: medians per JDK, the agent-minus-plain
# medians of the per-pair differences, and the targets of issue 17 (wall 100 ms, CPU 150 ms, peak RSS 20 MiB,
# exit 50 ms). The load average is printed too: other work on the machine inflates wall time first.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AGENT=""
N=10
AGENT_ARG=""
JVM_OPTS=""
JDKS="17=/usr/lib/jvm/java-17-openjdk-amd64,25=/usr/lib/jvm/temurin-25-jdk-amd64"
RAW=""
PIN=""
PROGRAM="Hello"

usage() {
    cat <<EOF
usage: scripts/startup.sh [options] [agent.jar]
  agent.jar              the agent (default: agent/target/remora-agent.jar, the shaded jar)
  -n N                   pairs per JDK (default $N)
  --agent-arg ARGS       agent argument string: -javaagent:jar=ARGS (e.g. remora.log=debug,remora.stats=true)
  --jvm-opts "..."       extra JVM options for both runs of a pair (e.g. -Xshare:off, -XX:TieredStopAtLevel=1)
  --jdks LIST            name=JAVA_HOME,... (default: $JDKS); a missing one is skipped
  --pin CPUS             run every JVM under taskset -c CPUS (default: unpinned, as a user runs it)
  --raw FILE             also write every run as CSV (jdk,pair,mode,wall_ms,cpu_ms,rss_kib,main_ms,exit_ms)
  --rmi                  run RmiHello instead of Hello: exports a remote object, calls it once through its stub,
                         then System.exit(0); its exit includes what RMI's threads blocked in socket calls cost
  -h, --help             this help
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        -n) N="$2"; shift 2 ;;
        --agent-arg) AGENT_ARG="$2"; shift 2 ;;
        --jvm-opts) JVM_OPTS="$2"; shift 2 ;;
        --jdks) JDKS="$2"; shift 2 ;;
        --pin) PIN="$2"; shift 2 ;;
        --raw) RAW="$2"; shift 2 ;;
        --rmi) PROGRAM="RmiHello"; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "startup.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) AGENT="$1"; shift ;;
    esac
done

if [ -z "$AGENT" ]; then
    AGENT="$ROOT/agent/target/remora-agent.jar"
fi
if [ ! -f "$AGENT" ]; then
    echo "startup.sh: no agent jar at $AGENT; build it: mvn -B -q -ntp -pl agent -am install" \
        "-Dmaven.test.skip=true, or pass the jar's path" >&2
    exit 2
fi
AGENT="$(cd "$(dirname "$AGENT")" && pwd)/$(basename "$AGENT")"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/remora-startup.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/Hello.java" <<'EOF'
public class Hello {
    public static void main(String[] args) {
        long start = System.nanoTime();
        System.out.println("Hello, world");
        System.out.println("remora-startup main " + start + " " + System.nanoTime());
    }
}
EOF

cat >"$WORK/RmiHello.java" <<'EOF'
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;

public class RmiHello {
    public interface Greeter extends Remote {
        String greet(String who) throws RemoteException;
    }

    static final class Impl implements Greeter {
        public String greet(String who) {
            return "Hello, " + who;
        }
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        Impl impl = new Impl();
        Greeter stub = (Greeter) UnicastRemoteObject.exportObject(impl, 0);
        if (!"Hello, world".equals(stub.greet("world"))) {
            throw new AssertionError("wrong greeting");
        }
        System.out.println("Hello, world");
        System.out.println("remora-startup main " + start + " " + System.nanoTime());
        System.exit(0); // as a server that is told to stop: RMI's accept loop is still listening
    }
}
EOF

# Compile with the oldest JDK given (class files for 17 run on 25).
JAVAC=""
IFS=',' read -r -a JDK_LIST <<<"$JDKS"
for entry in "${JDK_LIST[@]}"; do
    home="${entry#*=}"
    if [ -x "$home/bin/javac" ]; then JAVAC="$home/bin/javac"; break; fi
done
if [ -z "$JAVAC" ]; then
    echo "startup.sh: none of the JDKs ($JDKS) has a javac" >&2
    exit 2
fi
"$JAVAC" --release 17 -d "$WORK" "$WORK/Hello.java" "$WORK/RmiHello.java"

exec python3 - "$WORK" "$AGENT" "$N" "$AGENT_ARG" "$JVM_OPTS" "$JDKS" "$RAW" "$PIN" "$PROGRAM" <<'PY'
import os, shlex, statistics, subprocess, sys, time

work, agent, n, agent_arg, jvm_opts, jdks, raw_path, pin, program = sys.argv[1:10]
n = int(n)
opts = shlex.split(jvm_opts)
javaagent = "-javaagent:" + agent + ("=" + agent_arg if agent_arg else "")
TARGETS = {"wall": 100.0, "cpu": 150.0, "rss": 20.0, "exit": 50.0}  # ms, ms, MiB, ms

homes = []
for entry in jdks.split(","):
    name, _, home = entry.partition("=")
    if os.access(os.path.join(home, "bin", "java"), os.X_OK):
        homes.append((name, home))
    else:
        print(f"JDK {name}: no {home}/bin/java, skipped")
if not homes:
    sys.exit("startup.sh: no JDK to run")


def run(home, with_agent):
    cmd = [os.path.join(home, "bin", "java")] + opts + ([javaagent] if with_agent else []) + ["-cp", work, program]
    if pin:
        cmd = ["taskset", "-c", pin] + cmd
    out = os.open(os.path.join(work, "out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    t0 = time.monotonic_ns()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.monotonic_ns()
    p.returncode = os.waitstatus_to_exitcode(status)
    os.close(out)
    text = open(os.path.join(work, "out")).read()
    stamp = [l for l in text.splitlines() if l.startswith("remora-startup main ")]
    if p.returncode != 0 or not stamp:
        sys.exit(f"startup.sh: {' '.join(cmd)} failed (exit {p.returncode}):\n{text}")
    extra = [l for l in text.splitlines() if l != "Hello, world" and not l.startswith("remora-startup main ")]
    main_start, main_end = (int(x) for x in stamp[0].split()[2:4])
    return {
        "wall": (t1 - t0) / 1e6,
        "cpu": (ru.ru_utime + ru.ru_stime) * 1e3,
        "rss": ru.ru_maxrss / 1024.0,  # KiB -> MiB
        "main": (main_start - t0) / 1e6,
        "exit": (t1 - main_end) / 1e6,
        "output": extra,
    }


runs = {name: {"plain": [], "agent": []} for name, _ in homes}
raw = open(raw_path, "w") if raw_path else None
if raw:
    raw.write("jdk,pair,mode,wall_ms,cpu_ms,rss_kib,main_ms,exit_ms\n")
shown = set()
print(f"program: {program}; agent: {agent}{' (argument ' + agent_arg + ')' if agent_arg else ''}; {n} pairs per JDK; "
      f"JVM options: {jvm_opts or '(none)'}; {'pinned to CPU ' + pin if pin else 'unpinned'}; "
      f"load average before: {open('/proc/loadavg').read().split()[0]}")
for i in range(n):
    for name, home in homes:
        order = (False, True) if i % 2 == 0 else (True, False)
        for with_agent in order:
            r = run(home, with_agent)
            mode = "agent" if with_agent else "plain"
            runs[name][mode].append(r)
            if r["output"] and (name, mode) not in shown:
                shown.add((name, mode))
                print(f"JDK {name} {mode} also printed: " + " | ".join(r["output"][:5]))
            if raw:
                raw.write(f"{name},{i},{mode},{r['wall']:.2f},{r['cpu']:.1f},{r['rss'] * 1024:.0f},"
                          f"{r['main']:.2f},{r['exit']:.2f}\n")
print(f"load average after: {open('/proc/loadavg').read().split()[0]}")

UNITS = {"wall": "ms", "cpu": "ms", "rss": "MiB", "main": "ms", "exit": "ms"}
print()
print(f"{'JDK':<4} {'figure':<6} {'plain':>9} {'agent':>9} {'delta':>9} {'target':>8}  verdict   (medians; delta ="
      f" median of per-pair differences)")
for name, _ in homes:
    plain, agent_runs = runs[name]["plain"], runs[name]["agent"]
    for key in ("wall", "cpu", "rss", "main", "exit"):
        p = statistics.median(r[key] for r in plain)
        a = statistics.median(r[key] for r in agent_runs)
        d = statistics.median(y[key] - x[key] for x, y in zip(plain, agent_runs))
        t = TARGETS.get(key)
        verdict = "" if t is None else ("ok" if d <= t else "OVER")
        target = "" if t is None else f"<= {t:g}"
        print(f"{name:<4} {key:<6} {p:>9.1f} {a:>9.1f} {d:>+9.1f} {target:>8}  {verdict:<7} {UNITS[key]}")
PY
