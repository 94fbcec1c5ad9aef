#!/usr/bin/env bash
# Remora's main job: run the RMI benchmark collection (bench, dev.remora.bench.rmi) in a server JVM and a client
# JVM per configuration - vanilla RMI and every agent configuration the agent says it implements - and print a table
# shaped like Table 3 of "KaRMI": microseconds per call per configuration and the share of time saved against
# vanilla. Configurations alternate in rounds (round 1: all, round 2: all, ...) so machine drift hits all alike;
# each cell is the median of the round medians. Results: results/<timestamp>/ (summary.md, summary.csv, raw/, logs/).
#
#   scripts/compare.sh                 quick run (a few minutes): n = 50 and 5000, 3 rounds
#   scripts/compare.sh --full          every kernel/object of "KaRMI" section 6.1 (n = 50 ... 20000)
#   scripts/compare.sh --apps          the papers' parallel apps (SOR, ASP, LEQ, Radix, ...), N rank JVMs each, plainly
#                                      and with each configuration: wall, compute phase, CPU, calls; box plots
#   scripts/compare.sh --help          all options
#
# Configurations are data: scripts/lib/compare-configs.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFIG_FILE="$ROOT/scripts/lib/compare-configs.txt"
AGENT_JAR="$ROOT/agent/target/remora-agent.jar"
CLASSES="$ROOT/bench/target/classes"
MAIN_PKG="dev.remora.bench.rmi"

usage() {
    cat <<EOF
usage: scripts/compare.sh [options]
  --full                 every object and size of "KaRMI" section 6.1, more repetitions (default: quick)
  --apps                 run the papers' parallel applications instead of the kernels (scripts/lib/compare-apps.sh):
                         each app as N rank JVMs, every configuration, in rounds; report with a box plot per app
  --apps-list a,b        with --apps: which apps (default sor,asp,leq,radix,water,hamming,paraffin)
  --ranks 2,4            with --apps: rank JVMs per run (default 2)
                         with --apps, --sizes takes problem sizes: tiny, comm (plain RMI spends about half its time
                         or more communicating), compute (mostly computing, for seconds); default comm,compute. --pin: split
                         (default with --apps: rank i on CPU i mod CPUs), same (all on CPU 0) or none
  --rounds N             rounds; configurations alternate within each round (default 3)
  --configs a,b          configurations to run, from $(basename "$CONFIG_FILE") (default: all of them but those
                         after its '#on-request' line, e.g. socket+async; ones the agent does not implement yet are
                         skipped with its reason)
  --config-file FILE     configurations from FILE instead (same format; e.g. to add remora.dispatch=pool)
  --kernels k1,k2        kernels (default: the client's: ping,ping2i,ping2i2f,ping_obj,echo_obj,pingpong,star,raw_tcp;
                         also: throw, all)
  --objects LIST         objects, e.g. small,arrays or null,4int,float[5000] (default quick: small,arrays,byte[100000];
                         full: all,byte[100000])
  --sizes LIST           array lengths for 'arrays' (default quick: 50,5000; full: 50,200,500,2000,5000,20000)
  --pin same|split|best|none
                         CPU placement: same = server and client on CPU 0 (default; on this 2-vCPU VM waking the
                         other vCPU costs 30-60 us), split = server CPU 0, client CPU 1, best = each configuration
                         in its best: JRMP ones (vanilla, agent-off) same, Remora's spinning transports split (the
                         fabric issue's "vanilla in its best placement"), none = unpinned
  --jdk PATH             run both JVMs with PATH/bin/java (default: java on PATH or JAVA_HOME)
  --star-threads N       client threads in star(obj) (default 4)
  --cold N               the "cold" row: each fresh client JVM first times its lookup and N calls (void ping, null,
                         32int, tree15 in turn) before any warm-up, and both JVMs' CPU since start (default 2000; 0: off)
  --reps N               timed calls per kernel/object and round (default: quick 5000, full 20000)
  --budget-ms N          time limit of each kernel/object's warm-up and again of its timed calls (default: quick
                         500, full 2000). Long runs (e.g. --reps 200000 --budget-ms 5000) make the steady table
                         meaningful: it is read off 10 blocks of each run, and the machine's slow and fast wake-up
                         modes last seconds
  --warmup-ms N          JIT warm-up over all cases at the start of each client JVM, followed by passes until one
                         costs neither JVM JIT work (default: quick 6000, full 15000)
  --jvm-opts "..."       JVM options for both sides (default: "$DEFAULT_JVM_OPTS")
  --out DIR              results folder (default results/<timestamp>)
  --timeout-s N          kill a JVM pair that runs longer than this (default: quick 600, full 3600)
  --no-build             do not build missing or stale jars/classes
  --netns                two "hosts": server and client JVMs in two network namespaces joined by a veth pair
                         (10.199.0.1 and 10.199.0.2, made for the run and removed after; needs root); no shm floors
  -h, --help             this help
EOF
}

DEFAULT_JVM_OPTS="-Xms512m -Xmx512m -XX:+UseSerialGC"
APPS=0; APPS_LIST=""; APP_RANKS=""; PIN_SET=0
FULL=0; ROUNDS=3; CONFIGS=""; KERNELS=""; OBJECTS=""; SIZES=""; PIN=same; JDK=""; STAR_THREADS=4
COLD=2000; JVM_OPTS="$DEFAULT_JVM_OPTS"; REPS_OPT=""; BUDGET_MS_OPT=""; WARMUP_MS_OPT=""; OUT=""; TIMEOUT_S=""; BUILD=1

die() { echo "compare.sh: $*" >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --full) FULL=1; shift ;;
        --apps) APPS=1; shift ;;
        --apps-list) need_value "$@"; APPS_LIST="$2"; shift 2 ;;
        --ranks) need_value "$@"; APP_RANKS="$2"; shift 2 ;;
        --rounds) need_value "$@"; ROUNDS="$2"; shift 2 ;;
        --configs) need_value "$@"; CONFIGS="$2"; shift 2 ;;
        --config-file) need_value "$@"; CONFIG_FILE="$(realpath "$2")"; shift 2 ;;
        --kernels) need_value "$@"; KERNELS="$2"; shift 2 ;;
        --objects) need_value "$@"; OBJECTS="$2"; shift 2 ;;
        --sizes) need_value "$@"; SIZES="$2"; shift 2 ;;
        --pin) need_value "$@"; PIN="$2"; PIN_SET=1; shift 2 ;;
        --jdk) need_value "$@"; JDK="$2"; shift 2 ;;
        --star-threads) need_value "$@"; STAR_THREADS="$2"; shift 2 ;;
        --cold) need_value "$@"; COLD="$2"; shift 2 ;;
        --warmup-ms) need_value "$@"; WARMUP_MS_OPT="$2"; shift 2 ;;
        --reps) need_value "$@"; REPS_OPT="$2"; shift 2 ;;
        --budget-ms) need_value "$@"; BUDGET_MS_OPT="$2"; shift 2 ;;
        --jvm-opts) [[ $# -ge 2 ]] || die "--jvm-opts needs a value"; JVM_OPTS="$2"; shift 2 ;;
        --out) need_value "$@"; OUT="$2"; shift 2 ;;
        --timeout-s) need_value "$@"; TIMEOUT_S="$2"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --netns) NETNS=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option '$1'" ;;
    esac
done

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive whole number, got '$ROUNDS'"
[[ "$COLD" =~ ^[0-9]+$ ]] || die "--cold must be a whole number, got '$COLD'"
[[ "$STAR_THREADS" =~ ^[1-9][0-9]*$ ]] || die "--star-threads must be a positive whole number, got '$STAR_THREADS'"
case "$PIN" in same|split|best|none) ;; *) die "--pin must be same, split, best or none, got '$PIN'" ;; esac

if [[ $APPS == 1 ]]; then
    [[ $PIN_SET == 1 ]] || PIN="split"
    APP_SIZES_OPT="$SIZES"; SIZES="" # the kernels' array lengths below must not see the apps' size names
fi

# Default objects end with byte[100000]: the fabric floors below are read against its echo (see FloorReport).
if [[ $FULL == 1 ]]; then
    : "${OBJECTS:=all,byte[100000]}"; : "${SIZES:=50,200,500,2000,5000,20000}"
    WARMUP_MS=15000; WARMUP=5000; WARMUP_CASE_MS=500; REPS=20000; BUDGET_MS=2000; : "${TIMEOUT_S:=3600}"; MODE=full
else
    : "${OBJECTS:=small,arrays,byte[100000]}"; : "${SIZES:=50,5000}"
    WARMUP_MS=6000; WARMUP=2000; WARMUP_CASE_MS=200; REPS=5000; BUDGET_MS=500; : "${TIMEOUT_S:=600}"; MODE=quick
fi
if [[ -n "$WARMUP_MS_OPT" ]]; then
    [[ "$WARMUP_MS_OPT" =~ ^[0-9]+$ ]] || die "--warmup-ms must be a whole number, got '$WARMUP_MS_OPT'"
    WARMUP_MS="$WARMUP_MS_OPT"
fi
if [[ -n "$REPS_OPT" ]]; then
    [[ "$REPS_OPT" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive whole number, got '$REPS_OPT'"
    REPS="$REPS_OPT"
fi
if [[ -n "$BUDGET_MS_OPT" ]]; then
    [[ "$BUDGET_MS_OPT" =~ ^[1-9][0-9]*$ ]] || die "--budget-ms must be a positive whole number, got '$BUDGET_MS_OPT'"
    BUDGET_MS="$BUDGET_MS_OPT"
fi
[[ "$TIMEOUT_S" =~ ^[1-9][0-9]*$ ]] || die "--timeout-s must be a positive whole number, got '$TIMEOUT_S'"

# ---------------------------------------------------------------- what a fresh machine lacks
# setup.sh installs (as root) or names what is missing: JDK 17, Maven, C compiler, libfabric. Only when we build.
if [[ "$BUILD" = 1 ]]; then
    bash "$ROOT/scripts/setup.sh" || die "scripts/setup.sh could not prepare this machine (see above)"
fi

# ---------------------------------------------------------------- the JDK
if [[ -n "$JDK" ]]; then
    JAVA="$JDK/bin/java"
    [[ -x "$JAVA" ]] || die "--jdk $JDK: no executable $JAVA (give the JDK's home folder, e.g. /usr/lib/jvm/temurin-25-jdk-amd64)"
elif [[ -n "${JAVA_HOME:-}" && -x "${JAVA_HOME}/bin/java" ]]; then
    JAVA="$JAVA_HOME/bin/java"
else
    JAVA="$(command -v java || true)"
    [[ -n "$JAVA" ]] || die "no java on PATH: install a JDK 17+ (scripts/setup.sh) or pass --jdk PATH"
fi
JDK_VERSION="$("$JAVA" -version 2>&1 | head -1)"

# ---------------------------------------------------------------- JVMs we started, killed on any exit
SERVER_PID=""; CLIENT_PID=""
cleanup() {
    local pid
    for pid in $CLIENT_PID $SERVER_PID; do
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            sleep 0.3
            if kill -9 "$pid" 2>/dev/null; then
                # SIGKILL skips libfabric's cleanup: remove the 16 MB shm regions the JVM held (named <pid>:...)
                sleep 0.2; rm -f /dev/shm/"$pid":* 2>/dev/null || true
            fi
        fi
    done
    CLIENT_PID=""; SERVER_PID=""
}
trap cleanup EXIT
trap 'echo "compare.sh: interrupted; stopping the JVMs" >&2; cleanup; exit 130' INT TERM

# ---------------------------------------------------------------- build what is missing or stale
stale() { # stale TARGET DIR...: target missing or some file under DIR newer than it
    local target="$1"; shift
    [[ -e "$target" ]] || return 0
    local d
    for d in "$@"; do
        [[ -d "$d" ]] || continue
        if [[ -n "$(find "$d" -type f -newer "$target" -print -quit 2>/dev/null)" ]]; then return 0; fi
    done
    return 1
}

mkdir -p "$ROOT/results"
[[ -n "$OUT" ]] || OUT="$ROOT/results/$(date +%Y%m%d-%H%M%S)"
if compgen -G "$OUT/raw/*.csv" >/dev/null || compgen -G "$OUT/floor/*.csv" >/dev/null; then
    # the report reads every raw/*.csv: old rows would be mixed into this run's table
    echo "compare.sh: $OUT already holds results of another run; pass a new --out folder (or remove it)" >&2
    exit 2
fi
mkdir -p "$OUT/raw" "$OUT/logs" "$OUT/tmp" "$OUT/floor"
OUT="$(cd "$OUT" && pwd)"

if [[ $BUILD == 1 ]]; then
    if stale "$CLASSES/dev/remora/bench/rmi/BenchClient.class" "$ROOT/bench/src/main/java/dev/remora/bench/rmi" \
        || { [[ $APPS == 1 ]] && stale "$ROOT/bench/target/benchmarks.jar" "$ROOT/bench/src/main/java/dev/remora/bench/apps" \
                "$ROOT/bench/src/main/java/dev/remora/bench/plot"; }; then
        echo "compare.sh: building bench (mvn -q -DskipTests package -pl bench -am) ..." >&2
        if ! (cd "$ROOT" && mvn -q -DskipTests package -pl bench -am) >"$OUT/logs/build-bench.log" 2>&1; then
            # The benchmark app needs nothing but the JDK: compile it alone rather than give up.
            echo "compare.sh: the Maven build of bench failed (see $OUT/logs/build-bench.log);" \
                "compiling the RMI app alone with javac" >&2
            JAVAC="$(dirname "$JAVA")/javac"; [[ -x "$JAVAC" ]] || JAVAC=javac
            mkdir -p "$CLASSES"
            "$JAVAC" --release 17 -d "$CLASSES" "$ROOT"/bench/src/main/java/dev/remora/bench/rmi/*.java \
                >>"$OUT/logs/build-bench.log" 2>&1 \
                || die "cannot compile the benchmark app: see $OUT/logs/build-bench.log"
        fi
    fi
    if stale "$AGENT_JAR" "$ROOT/agent/src/main" "$ROOT/rmi-shim/src/main" "$ROOT/serializer/src/main" \
            "$ROOT/fabric-jni/src/main"; then
        echo "compare.sh: building the agent (mvn -q -DskipTests package -pl agent -am) ..." >&2
        if ! (cd "$ROOT" && mvn -q -DskipTests package -pl agent -am) >"$OUT/logs/build-agent.log" 2>&1; then
            echo "compare.sh: the agent build failed (see $OUT/logs/build-agent.log)" >&2
            [[ -f "$AGENT_JAR" ]] && echo "compare.sh: using the older $AGENT_JAR" >&2
        fi
    fi
fi
[[ -f "$CLASSES/$(tr . / <<<"$MAIN_PKG")/BenchClient.class" ]] \
    || die "no benchmark classes in $CLASSES: build with 'mvn -q -DskipTests package -pl bench -am' or drop --no-build"

# Run from a snapshot of the app's classes: others may rebuild bench/target while the JVMs run (a class loaded
# late then vanishes: NoClassDefFoundError), and the results folder keeps exactly what was measured.
mkdir -p "$OUT/app-classes/dev/remora/bench"
cp -r "$CLASSES/dev/remora/bench/rmi" "$OUT/app-classes/dev/remora/bench/" \
    || die "cannot copy the benchmark classes from $CLASSES"
# Remora.async (kernel api_wait1ms): the optional API jar's classes, as an application ships them
API_JAR=$(ls "$ROOT"/agent/target/remora-agent-*-api.jar 2>/dev/null | head -1)
[[ -n "$API_JAR" ]] || die "no agent/target/remora-agent-*-api.jar (build the agent: mvn -pl agent -am package)"
JAR_TOOL="$(dirname "$(readlink -f "$JAVA")")/jar"
if [[ -x "$JAR_TOOL" ]]; then
    (cd "$OUT/app-classes" && "$JAR_TOOL" xf "$API_JAR" dev) || die "cannot unpack $API_JAR"
else
    unzip -q -o "$API_JAR" 'dev/*' -d "$OUT/app-classes" || die "cannot unpack $API_JAR (no jar tool next to $JAVA, no unzip)"
fi
if [[ $APPS == 1 ]]; then
    cp -r "$CLASSES/dev/remora/bench/apps" "$OUT/app-classes/dev/remora/bench/" \
        || die "cannot copy the apps' classes from $CLASSES/dev/remora/bench/apps (build bench)"
fi
CLASSES="$OUT/app-classes"

# ---------------------------------------------------------------- configurations
declare -a ALL_NAMES=() DEFAULT_NAMES=() RUN=() SKIPPED=()
declare -A PROPS=()
ON_REQUEST=0 # configurations after the line '#on-request' run only when --configs names them
while read -r name props; do
    [[ "$name" == "#on-request" ]] && { ON_REQUEST=1; continue; }
    [[ -z "$name" || "$name" == \#* ]] && continue
    ALL_NAMES+=("$name"); PROPS["$name"]="$props"
    [[ $ON_REQUEST == 1 ]] || DEFAULT_NAMES+=("$name")
done <"$CONFIG_FILE"
BASELINE="${ALL_NAMES[0]}"

declare -a WANTED=()
if [[ -n "$CONFIGS" ]]; then
    IFS=',' read -r -a WANTED <<<"$CONFIGS"
    for c in "${WANTED[@]}"; do
        [[ -n "${PROPS[$c]+x}" ]] || die "unknown configuration '$c': known are ${ALL_NAMES[*]} ($CONFIG_FILE)"
    done
else
    WANTED=("${DEFAULT_NAMES[@]}")
fi

for c in "${WANTED[@]}"; do
    props="${PROPS[$c]}"
    if [[ "$props" == "-" ]]; then RUN+=("$c"); continue; fi
    if [[ ! -f "$AGENT_JAR" ]]; then SKIPPED+=("$c: no agent jar at $AGENT_JAR (build: mvn -q -DskipTests package -pl agent -am)"); continue; fi
    # shellcheck disable=SC2086
    if reason="$(timeout 60 "$JAVA" -jar "$AGENT_JAR" --validate $props 2>&1)"; then
        RUN+=("$c")
    else
        SKIPPED+=("$c: $(head -1 <<<"${reason:-agent --validate failed}")")
    fi
done
[[ ${#RUN[@]} -gt 0 ]] || die "no configuration can run: ${SKIPPED[*]}"
[[ " ${RUN[*]} " == *" $BASELINE "* ]] || BASELINE="${RUN[0]}"

jvm_opts_of() { # the JVM options of configuration $1 (both sides)
    local props="${PROPS[$1]}" p out="$JVM_OPTS"
    if [[ "$props" != "-" ]]; then
        out="$out -javaagent:$AGENT_JAR -Dremora.stats=true"
        for p in $props; do out="$out -D$p"; done
    fi
    echo "$out"
}

is_jrmp_config() { # true when configuration $1 leaves calls on JRMP (no agent, or remora.transport=jrmp / enabled=false)
    local props=" ${PROPS[$1]} "
    [[ "$props" == " - " || "$props" == *" remora.transport=jrmp "* || "$props" == *" remora.enabled=false "* ]]
}

# ---------------------------------------------------------------- CPU placement
NCPU="$(nproc 2>/dev/null || echo 1)"
if [[ "$PIN" != none ]] && ! command -v taskset >/dev/null; then
    echo "compare.sh: taskset not found (Debian: apt-get install util-linux); running unpinned" >&2; PIN=none
fi
if [[ ( "$PIN" == split || "$PIN" == best ) && "$NCPU" -lt 2 ]]; then die "--pin $PIN needs 2 CPUs, this machine has $NCPU"; fi
case "$PIN" in
    same) PIN_SERVER=(taskset -c 0); PIN_CLIENT=(taskset -c 0); PLACEMENT="same: server and client on CPU 0" ;;
    split) PIN_SERVER=(taskset -c 0); PIN_CLIENT=(taskset -c 1); PLACEMENT="split: server on CPU 0, client on CPU 1" ;;
    best) PIN_SERVER=(taskset -c 0); PIN_CLIENT=(taskset -c 0)
          PLACEMENT="best: JRMP configurations (vanilla, transport=jrmp) with server and client on CPU 0, their best;"
          PLACEMENT="$PLACEMENT"$'\n'"            Remora transports (which spin) with server on CPU 0, client on CPU 1: spinning peers must not share one" ;;
    none) PIN_SERVER=(); PIN_CLIENT=(); PLACEMENT="none: unpinned ($NCPU CPUs; latency may flip between placements)" ;;
esac

# ---------------------------------------------------------------- the parallel applications instead of the kernels
if [[ $APPS == 1 ]]; then
    SIZES="$APP_SIZES_OPT"
    # shellcheck source=scripts/lib/compare-apps.sh
    source "$ROOT/scripts/lib/compare-apps.sh"
    exit $?
fi

# ---------------------------------------------------------------- two "hosts": network namespaces joined by veth
# --netns: the server runs in namespace remora-cmp-a (10.199.0.1), the client in remora-cmp-b (10.199.0.2), joined
# by a veth pair, the closest this machine gets to two hosts (Remora then judges its peer to be on another host: no
# shm). The namespaces and their addresses exist only for the run. Needs root (ip netns).
SERVER_HOST=127.0.0.1; NS_SERVER=(); NS_CLIENT=(); CLIENT_HOST_OPT=""
if [[ "${NETNS:-0}" == 1 ]]; then
    [[ $(id -u) == 0 ]] || die "--netns needs root (it creates two network namespaces and a veth pair)"
    command -v ip >/dev/null || die "--netns needs ip (Debian: apt-get install iproute2)"
    netns_down() { ip netns del remora-cmp-a 2>/dev/null || true; ip netns del remora-cmp-b 2>/dev/null || true; }
    netns_down
    ip netns add remora-cmp-a && ip netns add remora-cmp-b \
        && ip link add remora-va type veth peer name remora-vb \
        && ip link set remora-va netns remora-cmp-a && ip link set remora-vb netns remora-cmp-b \
        && ip -n remora-cmp-a addr add 10.199.0.1/24 dev remora-va && ip -n remora-cmp-b addr add 10.199.0.2/24 dev remora-vb \
        && ip -n remora-cmp-a link set remora-va up && ip -n remora-cmp-b link set remora-vb up \
        && ip -n remora-cmp-a link set lo up && ip -n remora-cmp-b link set lo up \
        || { netns_down; die "--netns: could not set up the namespaces"; }
    trap netns_down EXIT
    SERVER_HOST=10.199.0.1; NS_SERVER=(ip netns exec remora-cmp-a); NS_CLIENT=(ip netns exec remora-cmp-b)
    CLIENT_HOST_OPT="-Djava.rmi.server.hostname=10.199.0.2" # where the server's callbacks reach the client
    PLACEMENT="$PLACEMENT"$'\n'"            netns: server in remora-cmp-a (10.199.0.1), client in remora-cmp-b (10.199.0.2), over veth"
fi

# ---------------------------------------------------------------- header
{
    echo "Remora compare ($MODE) $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $NCPU CPUs, $(uname -r)"
    echo "commit:     $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo ' (modified tree)')"
    echo "JDK:        $JDK_VERSION ($JAVA)"
    echo "placement:  $PLACEMENT"
    echo "load:       $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) (1/5/15-min load average at start; other work on the CPUs skews latency)"
    echo "rounds:     $ROUNDS (configurations in table order in odd rounds, reversed in even ones)"
    echo "per run:    JIT warm-up ${WARMUP_MS} ms over all cases, then until the JIT is quiet; per kernel/object"
    echo "            $WARMUP warm-up calls and at least ${WARMUP_CASE_MS} ms of them, then $REPS timed calls, at most"
    echo "            ${BUDGET_MS} ms each; star: $STAR_THREADS threads in one client JVM"
    echo "cold:       $COLD calls first, before any warm-up (row 'cold': lookup included, mean us per call)"
    echo "objects:    $OBJECTS (sizes $SIZES); kernels: ${KERNELS:-default}"
    echo "JVM opts:   $JVM_OPTS"
    echo "configs:    ${RUN[*]} (baseline $BASELINE)"
    for s in "${SKIPPED[@]}"; do echo "skipped:    $s"; done
} | tee "$OUT/header.txt" >&2
echo >&2

# ---------------------------------------------------------------- one server/client pair
FAILED=()
run_pair() { # run_pair CONFIG ROUND
    local c="$1" r="$2" opts tag="$1-r$2" ready="$OUT/tmp/$1-r$2.ready" port="" i rc
    opts="$(jvm_opts_of "$c")"
    if [[ "$PIN" == best ]]; then # each configuration in its own best placement (see --help)
        if is_jrmp_config "$c"; then PIN_CLIENT=(taskset -c 0); else PIN_CLIENT=(taskset -c 1); fi
    fi
    rm -f "$ready"
    # shellcheck disable=SC2086
    "${NS_SERVER[@]}" "${PIN_SERVER[@]}" "$JAVA" $opts -cp "$CLASSES" "$MAIN_PKG.BenchServer" --host "$SERVER_HOST" --port 0 \
        --ready-file "$ready" >"$OUT/logs/$tag-server.log" 2>&1 &
    SERVER_PID=$!
    for ((i = 0; i < 600; i++)); do
        [[ -f "$ready" ]] && break
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    [[ -f "$ready" ]] && port="$(sed -n 's/^port=//p' "$ready")"
    if [[ -z "$port" ]]; then
        echo "compare.sh: the server JVM of $c (round $r) $(kill -0 "$SERVER_PID" 2>/dev/null && echo 'did not get ready in 60 s' || echo 'died'); last lines of $OUT/logs/$tag-server.log:" >&2
        tail -n 15 "$OUT/logs/$tag-server.log" | sed 's/^/    /' >&2
        cleanup; return 1
    fi
    # shellcheck disable=SC2086
    timeout --kill-after=10 "$TIMEOUT_S" "${NS_CLIENT[@]}" "${PIN_CLIENT[@]}" "$JAVA" $opts $CLIENT_HOST_OPT \
        -Dsun.rmi.transport.tcp.responseTimeout=120000 \
        -cp "$CLASSES" "$MAIN_PKG.BenchClient" --host "$SERVER_HOST" --port "$port" --config "$c" --round "$r" \
        --objects "$OBJECTS" --sizes "$SIZES" ${KERNELS:+--kernels "$KERNELS"} --warmup-ms "$WARMUP_MS" \
        --warmup "$WARMUP" --warmup-case-ms "$WARMUP_CASE_MS" --reps "$REPS" --budget-ms "$BUDGET_MS" --star-threads "$STAR_THREADS" \
        --cold "$COLD" --verify-first --no-header --shutdown-server >"$OUT/raw/$tag.csv" 2> >(tee "$OUT/logs/$tag-client.log" \
        | sed -u -n -e "s/^\[bench-client\] config $c round $r: \(.*\) \.\.\.$/  round $r\/$ROUNDS, config $c, kernel \1 .../p" \
                    -e 's/^\[bench-client\]   median/      median/p' -e '/^bench-client:/p' -e '/stats-csv/d' -e '/^\[remora\].*\(warn\|error\|fail\)/Ip' >&2) &
    CLIENT_PID=$!
    rc=0; wait "$CLIENT_PID" || rc=$?
    CLIENT_PID=""
    # The server exits by itself after shutdown(); give it time to print its stats, then make sure.
    for ((i = 0; i < 100; i++)); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    cleanup
    sleep 0.2 # let the tee of the client's stderr finish
    if [[ $rc -ne 0 ]]; then
        if [[ $rc -eq 124 || $rc -eq 137 ]]; then
            echo "compare.sh: the client JVM of $c (round $r) ran longer than --timeout-s $TIMEOUT_S and was killed" >&2
        else
            echo "compare.sh: the client JVM of $c (round $r) failed (exit $rc); last lines of $OUT/logs/$tag-client.log:" >&2
        fi
        tail -n 15 "$OUT/logs/$tag-client.log" | sed 's/^/    /' >&2
        return 1
    fi
    local stats
    stats="$(grep -h '\[remora\] stats-csv' "$OUT/logs/$tag-client.log" | tail -1 || true)"
    if [[ -n "$stats" ]]; then
        echo "  client stats: $(sed 's/.*stats-csv //' <<<"$stats" | tr ',' '\n' | grep -E '^(calls_remora|calls_jrmp|fallbacks)=' | paste -sd' ')" >&2
    fi
    return 0
}

# ---------------------------------------------------------------- the floors of the fabric transport
# When a fabric configuration runs, each round also measures two floors over the same provider (shm) in the same
# placement with the same wait policy as Remora's endpoint (polls, then sched_yield, then naps), 64 B and 100000 B
# round trips: bench's C ping-pong (libfabric alone, fixed buffers), the same with -F (100000 B only: each message
# received into cold memory and echoed from there, as a Java echo's new array is, with nothing zeroed or copied) and
# FabricPingPong -f on the JVMs' own options (the transport plus a new byte[] per message received, which any Java
# echo of an array pays). CompareReport reads them from $OUT/floor and prints echo_obj byte[100000] against each.
FLOOR_BIN="$ROOT/bench/target/c/remora_fabric_pingpong"
FLOOR=0; FLOORS=0
if [[ " ${RUN[*]} " == *" fabric"* && "${NETNS:-0}" != 1 ]]; then # the floors are shm's: not across "hosts"
    FLOORS=1
    if [[ ! -x "$FLOOR_BIN" && "$BUILD" = 1 ]]; then
        make -s -C "$ROOT/bench/src/main/c" >"$OUT/logs/build-floor.log" 2>&1 || true
    fi
    if [[ -x "$FLOOR_BIN" ]]; then FLOOR=1; elif [[ "$BUILD" = 1 ]]; then
        echo "compare.sh: no C floor ($FLOOR_BIN; see $OUT/logs/build-floor.log): fabric rows have no C floor" >&2
    else
        echo "compare.sh: no C floor ($FLOOR_BIN is not built, and --no-build builds nothing: run without it, or" \
            "make -C bench/src/main/c): fabric rows have no C floor" >&2
    fi
fi
case "$PIN" in
    same) FLOOR_CPUS=(-c 0 -C 0); JFLOOR_PIN=(taskset -c 0); JFLOOR_SERVER=(-C 0) ;;
    split|best) FLOOR_CPUS=(-c 1 -C 0); JFLOOR_PIN=(taskset -c 1); JFLOOR_SERVER=(-C 0) ;;
    *) FLOOR_CPUS=(); JFLOOR_PIN=(); JFLOOR_SERVER=() ;;
esac
run_floor() { # run_floor ROUND
    echo "round $1/$ROUNDS, fabric floors over shm: C with fixed, then fresh buffers, then Java with fresh arrays" >&2
    if ((FLOOR)); then
        timeout --kill-after=5 120 "$FLOOR_BIN" -p shm -s 64,100000 -n 20000 -m block -S 20 "${FLOOR_CPUS[@]}" \
            >"$OUT/floor/floor-r$1.csv" 2>"$OUT/logs/floor-r$1.log" \
            || echo "compare.sh: the C floor failed in round $1 (see $OUT/logs/floor-r$1.log)" >&2
        timeout --kill-after=5 120 "$FLOOR_BIN" -p shm -s 100000 -n 20000 -m block -S 20 -F "${FLOOR_CPUS[@]}" \
            >"$OUT/floor/floor-r$1-fresh.csv" 2>"$OUT/logs/floor-r$1-fresh.log" \
            || echo "compare.sh: the C floor with fresh buffers failed in round $1" \
                    "(see $OUT/logs/floor-r$1-fresh.log)" >&2
    fi
    # The Java floor runs FabricPingPong from the agent's jar without the agent, which would otherwise enable native
    # access itself: the flag keeps JDK 22+'s restricted-method warning out of its log (JDK 17 accepts it too).
    # shellcheck disable=SC2086
    timeout --kill-after=5 180 "${JFLOOR_PIN[@]}" "$JAVA" $JVM_OPTS --enable-native-access=ALL-UNNAMED \
        -cp "$AGENT_JAR" \
        dev.remora.fabric.tools.FabricPingPong -p shm -s 64,100000 -n 20000 -m block -S 20 -f "${JFLOOR_SERVER[@]}" \
        >"$OUT/floor/floor-r$1-java.csv" 2>"$OUT/logs/floor-r$1-java.log" \
        || echo "compare.sh: the Java floor failed in round $1 (see $OUT/logs/floor-r$1-java.log)" >&2
}

START=$SECONDS
for ((r = 1; r <= ROUNDS; r++)); do
    ((FLOORS)) && run_floor "$r"
    # Odd rounds run the configurations in table order, even rounds in reverse: no configuration always goes first.
    ORDER=("${RUN[@]}")
    if ((r % 2 == 0)); then
        ORDER=(); for ((i = ${#RUN[@]} - 1; i >= 0; i--)); do ORDER+=("${RUN[$i]}"); done
    fi
    for c in "${ORDER[@]}"; do
        [[ " ${FAILED[*]:-} " == *" $c "* ]] && continue
        echo "round $r/$ROUNDS, config $c ($(( (SECONDS - START) / 60 )) min $(( (SECONDS - START) % 60 )) s elapsed)" >&2
        if ! run_pair "$c" "$r"; then
            FAILED+=("$c")
            echo "compare.sh: dropping configuration $c from the remaining rounds" >&2
        fi
    done
done
rm -rf "$OUT/tmp"

# ---------------------------------------------------------------- report
echo >&2
cat "$OUT/header.txt"
echo
configs_csv="$(IFS=,; echo "${RUN[*]}")"
"$JAVA" -cp "$CLASSES" "$MAIN_PKG.CompareReport" --dir "$OUT" --configs "$configs_csv" --baseline "$BASELINE" \
    || die "could not build the report from $OUT/raw (see $OUT/logs)"
# Figure 5 of "KaRMI" per kernel: each object/size a dot, % of time saved against the baseline per configuration.
awk -F, -v base="$BASELINE" 'NR == 1 { print "chart,config,saved_pct"; next }
    $1 != base && $10 != "" { print "kernel-" $2 "," $1 "," $10; print "kernel-all," $1 "," $10 }' \
    "$OUT/summary.csv" >"$OUT/points-kernels.csv"
if [[ -f "$ROOT/bench/target/benchmarks.jar" ]] && [[ $(wc -l <"$OUT/points-kernels.csv") -gt 1 ]] \
    && "$JAVA" -Djava.awt.headless=true -cp "$ROOT/bench/target/benchmarks.jar" dev.remora.bench.plot.SavedBoxPlot \
        --in "$OUT/points-kernels.csv" --out-dir "$OUT/plots" --baseline "$BASELINE" --what "time per call" \
        >"$OUT/logs/plot.log" 2>&1; then
    {
        echo; echo "## Box plots (Figure 5 of "KaRMI": % of time saved against $BASELINE, each dot an object/size)"; echo
        for png in "$OUT"/plots/kernel-*.png; do echo "![$(basename "$png" .png)](plots/$(basename "$png"))"; echo; done
    } >>"$OUT/summary.md"
else
    echo "compare.sh: no box plots (need bench/target/benchmarks.jar with JFreeChart; see $OUT/logs/plot.log)" >&2
fi
echo
echo "Each cell: median over $ROUNDS rounds of the per-round median (us per call; star: calls/s of all threads);"
echo "in brackets the share of time saved against $BASELINE (negative: slower). Steady: per run the lowest median of"
echo "10 consecutive blocks of timed calls (the VM's slow wake-up stretches left out; meaningful with long runs, e.g."
echo "--reps 200000 --budget-ms 5000). CPU: time of both JVMs, all threads, per timed call (median over rounds): what a"
echo "configuration costs the machine, spinning included."
for s in "${SKIPPED[@]}"; do echo "skipped $s"; done
for f in "${FAILED[@]}"; do echo "FAILED $f: see $OUT/logs"; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "results: $OUT/summary.md, $OUT/summary.csv (raw rows: $OUT/raw, JVM logs: $OUT/logs)"
[[ ${#FAILED[@]} -eq 0 ]]
