#!/usr/bin/env bash
# The conformance referee (issues 15 and 16): runs OpenJDK's own jtreg tests of RMI (test/jdk/java/rmi,
# test/jdk/sun/rmi), of serialization (test/jdk/java/io/Serializable and its neighbours) and of the JMX connector
# over RMI (test/jdk/javax/management/remote/mandatory, remote JMX being RMI's most common user) on JDK 17 and JDK 25,
# each twice: plainly and with -javaagent:remora-agent.jar. It prints a table per suite and JDK, lists every test
# whose result differs between the two runs, writes the same as Markdown to results/conformance-<timestamp>/, and
# exits 1 when a test passes plainly but not with the agent (for the serial suite: unless
# scripts/conformance/format-bound.txt exempts it). scripts/conformance.sh --help explains the options.
#
# How it gets what it needs, with nothing but Debian's package registry, and why that way:
# - A private apt state in the cache (its own sources list, index lists and archives; apt-get -o Dir::...). It has
#   deb-src lines for bookworm, bookworm-security, trixie, trixie-security and sid, and binary lines for bookworm(-
#   security) and trixie(-security). The machine's own apt configuration is neither read for this nor changed, so
#   which binary packages the machine installs cannot change, no root is needed, and a trixie/sid index never
#   reaches the system's apt.
# - Test sources: `apt-get source --download-only openjdk-<N>=<version>` for the Debian source version nearest to the
#   installed JDK's own version (exact if served), trying the next nearest when the mirror no longer serves a file
#   (seen here: every openjdk-25 source version listed in trixie, trixie-security and sid answered 404 on
#   2026-11-25, while their binary packages were served). When no version of openjdk-<N> can be fetched, the
#   neighbouring release's source is used (openjdk-<N+1>, then <N-1>) with a warning on the console and in the
#   report: the RMI and serialization tests barely move between releases, and the JDK 24+ tests already match 25's
#   removed Security Manager. --src 25=DIR uses an OpenJDK source tree you have instead (e.g. a jdk25u checkout).
#   Only the test folders are extracted (the list is SRC_PATHS below), into the cache, never the repository; the
#   tarballs are deleted after extraction. The cached copy's test/jdk/TEST.groups is replaced by an empty one: its
#   groups name folders that are not extracted, and jtreg refuses a groups file with missing entries.
# - jtreg: Debian's own packages, unpacked with dpkg-deb -x into the cache, not installed: jtreg7 (bookworm) and
#   jtreg8 (trixie) are arch-all and self-contained (their lib/ holds every jar), but conflict with each other as
#   installed packages, and installing trixie's jtreg8 on bookworm would need apt pinning. Each test tree gets the
#   lowest one that satisfies its TEST.ROOT requiredVersion (JDK 17u: 7.x, jtreg7; JDK 25 and 26: 8.x, jtreg8), and
#   TEST.ROOT is never patched. jtreg runs on the JDK under test (java -jar jtreg.jar, not /usr/bin/jtreg, which
#   would take JAVA_HOME).
#
# Running: jtreg -agentvm -conc:4 -timeoutFactor:1. Measured on 2 vCPUs: the plain results are those of -conc:2;
# RMI tests without a longer timeout of their own took at most about 40 s of their 120 s, with the agent too; a test
# that hangs with the agent costs 2 minutes in one slot of four, not 8 in one of two (JDK 17's RMI suite: 2m08s
# plain and 4m45s with the agent, two hangs; with -conc:2 -timeoutFactor:4 2m48s and 16m33s, three hangs). The
# tree's ProblemList.txt is excluded, the
# agent given as -javaoption:-javaagent:JAR (JAVA_TOOL_OPTIONS does not reach jtreg's test VMs; -javaoption does,
# and through test.java.opts also the RMI test library's child JVMs). The agent jar is copied into the run's cache
# folder first, so a rebuild of agent/target during the run cannot change it under running JVMs. Tests that bind
# registry port 1099 fail when another process holds it: the script waits up to 2 minutes for it to be free before
# each RMI run and stops with the holder's name otherwise; inside a run, jtreg's exclusiveAccess.dirs in TEST.ROOT
# keeps java/rmi/Naming serial. jtreg's work and report folders stay in the cache (the last 5 runs are kept). One
# run at a time per cache (flock on $REMORA_CACHE/conformance/.lock): a second run waits for the first.
# Plain results are cached (a full suite's, per JDK build, test tree, jtreg and options, for 7 days in
# $REMORA_CACHE/conformance/plain): they do not depend on Remora, and running them took half the script's time. With a
# cached plain run, the agent runs first, then every test that did not pass with the agent (format-bound ones aside)
# runs plainly again at once, so a regression is still judged against a plain result of this machine, now; the
# cache only supplies the plain results of tests that pass with the agent. --fresh-plain runs the whole plain suite.
# A test that passes plainly and fails with the agent then runs with the agent again (--retries, default once): the
# JDK's tests race at times (NoConsoleOutput's logging at JVM exit), and one such race must not read as a
# regression. One that passes again is listed as intermittent with the reason of its failure; one that fails in
# every run is the regression it looks like.
# At the end, /dev/shm files of dead processes (libfabric's <pid>:<uid>:<n>, Remora's rings <pid>:remora:<n>)
# are removed.
set -euo pipefail
export LC_ALL=C

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROG="scripts/conformance.sh"
CACHE="${REMORA_CACHE:-$HOME/.cache/remora}/conformance"
FORMAT_BOUND="$ROOT/scripts/conformance/format-bound.txt"
KNOWN_FILE=""
JDK17="${REMORA_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}"
JDK25="${REMORA_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
DEBIAN_MIRROR="${REMORA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${REMORA_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
KEYRING="/usr/share/keyrings/debian-archive-keyring.gpg"
LAYOUT=2            # bump when SRC_PATHS or the fix-ups of the cached tree change: forces a new extraction
KEEP_RUNS=5
PLAIN_DAYS=7        # a cached plain run is used for this many days (see --fresh-plain)
PLAIN_FORMAT=1      # bump when what a plain run's result depends on changes

# What is extracted from a source tarball (below its top folder).
SRC_PATHS=(test/jdk/TEST.ROOT 'test/jdk/ProblemList*' test/jtreg-ext test/lib
           test/jdk/java/rmi test/jdk/sun/rmi test/jdk/java/io test/jdk/javax/management)
RMI_DIRS=(java/rmi sun/rmi)
JMX_DIRS=(javax/management/remote/mandatory)
SERIAL_DIRS=(java/io/Serializable java/io/Externalizable java/io/ObjectInputStream java/io/ObjectStreamClass)

usage() {
    cat <<EOF
usage: $PROG [17|25|all] [--suite rmi|serial|jmx|all] [--agent JAR] [options] [jtreg test paths...]

Runs OpenJDK's jtreg conformance tests on the selected JDKs, each twice: plainly and with the Remora agent, and
reports every test whose result differs. Exit status: 0 = no test passes plainly and fails (or errs, or goes
missing) with the agent in every run (see --retries); 1 = at least one does (the serial suite's format-bound tests
and --known divergences excepted); 2 = the script could not run (the message names the fix).

  17 | 25 | all        JDKs to run (default all). JDK 17: \$REMORA_JDK17 (default $JDK17);
                       JDK 25: \$REMORA_JDK25 (default $JDK25)
  --suite S            rmi (default): test/jdk/java/rmi and test/jdk/sun/rmi, agent run with
                         -javaoption:-javaagent:JAR
                       serial: test/jdk/java/io/{Serializable,Externalizable,ObjectInputStream,ObjectStreamClass},
                         agent run with -javaoption:-javaagent:JAR -javaoption:-Dremora.oos=fast; tests listed in
                         scripts/conformance/format-bound.txt (they read the JDK's own byte format) may differ
                         without failing the run
                       jmx: test/jdk/javax/management/remote/mandatory (the JMX connector over RMI), agent run
                         as rmi's
                       all: the three
  --agent JAR          the agent jar (default agent/target/remora-agent.jar, built first when missing or older
                       than the sources; see --no-build). It is copied into the cache before the runs.
  --no-build           do not build the agent jar (and do not run scripts/setup.sh)
  --conc N             jtreg -conc (default 4: most RMI tests wait rather than compute, and a test that hangs
                       with the agent then blocks one slot of four; on this 2-vCPU machine the plain results were
                       the same as with -conc:2)
  --timeout-factor N   jtreg -timeoutFactor (default 1: 120 s for a test without its own timeout, about 3 times
                       the slowest RMI test here; a test that hangs costs 120 s x N. OpenJDK's make test uses 4:
                       take that when a slow machine times tests out in the plain run too)
  --jtreg-opt OPT      one more jtreg option for both runs (repeatable), e.g. --jtreg-opt -verbose:fail
  --src V=DIR          use the OpenJDK source tree DIR (holding test/jdk and test/lib) for JDK V (17 or 25)
                       instead of a Debian source package
  --fetch-only         install jtreg and fetch the test sources, then stop (e.g. to time or warm the cache)
  --fresh-plain        run the whole plain suites, not the cached plain results of the last $PLAIN_DAYS days (a
                       cached run is used for a full suite on the same JDK build, tests, jtreg and options; the
                       tests that fail with the agent always run plainly again)
  --out DIR            results folder (default results/conformance-<timestamp>)
  --known FILE         divergences known and not fixed yet (CI passes scripts/conformance/known-divergences.txt):
                       lines "<17|25|all> <rmi|serial|jmx> <test path> <reason, naming the issue>"; such a test that
                       fails with the agent is reported as known and does not fail the run; one that passes is
                       reported as fixed (remove its line). Any other regression still fails the run.
  --retries N          how many times a test that passes plainly but not with the agent runs with the agent again
                       (default 1; 0: never). One that passes in such a run is reported as intermittent, with the
                       reason of its failure, and does not fail the run; one that fails in every run is a
                       regression. Why: the JDK's own tests race at times (NoConsoleOutput's logging at JVM exit)
  -h, --help           this help

  jtreg test paths     test files or folders relative to test/jdk (e.g. java/rmi/Naming or
                       java/io/Serializable/evolution); they replace the suite's folders. With --suite all, a path
                       under java/rmi or sun/rmi goes to the rmi suite, under javax/management to jmx, any other
                       to serial.

Environment: REMORA_CACHE (default ~/.cache/remora; this script uses \$REMORA_CACHE/conformance: private apt
state, jtreg, test sources per installed JDK version, jtreg work/report folders of the last $KEEP_RUNS runs, plain
results),
REMORA_JDK17, REMORA_JDK25, REMORA_DEBIAN_MIRROR and REMORA_DEBIAN_SECURITY_MIRROR (default deb.debian.org).

Sources: Debian source packages openjdk-17 (bookworm, bookworm-security) and openjdk-25 (trixie, trixie-security or
sid): the version nearest the installed JDK that the mirror serves; when none of a release is served, the
neighbouring release's (a warning says so; the report names the version used). jtreg: Debian's jtreg7 (bookworm)
or jtreg8 (trixie), whichever the tree's TEST.ROOT requiredVersion needs, unpacked into the cache. Nothing of the
machine's apt configuration is changed. Details: the comment at the top of this script.

Output: progress lines on stderr, the tables and the differing tests on stdout, and
results/conformance-<timestamp>/report.md (plus each run's jtreg summary, summary-<jdk>-<suite>-<run>.txt).
Every differing test is listed with the first line of jtreg's reason and the first exception line of its .jtr.
EOF
}

die() { echo "$PROG: $*" >&2; exit 2; }
say() { echo "[conformance $(date +%H:%M:%S)] $*" >&2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"; }
fmt_s() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ---------------------------------------------------------------- options
ORIG_ARGS="$*"
JDKS_ARG=all; SUITE=rmi; AGENT=""; BUILD=1; CONC=4; TIMEOUT_FACTOR=1; FETCH_ONLY=0; OUT=""; FRESH_PLAIN=0; RETRIES=1
declare -a EXTRA_OPTS=() PATHS=()
declare -A SRC_OVERRIDE=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        17|25|all) JDKS_ARG="$1"; shift ;;
        --suite) need_value "$@"; SUITE="$2"; shift 2 ;;
        --suite=*) SUITE="${1#*=}"; shift ;;
        --agent) need_value "$@"; AGENT="$2"; shift 2 ;;
        --agent=*) AGENT="${1#*=}"; shift ;;
        --no-build) BUILD=0; shift ;;
        --conc) need_value "$@"; CONC="$2"; shift 2 ;;
        --timeout-factor) need_value "$@"; TIMEOUT_FACTOR="$2"; shift 2 ;;
        --jtreg-opt) need_value "$@"; EXTRA_OPTS+=("$2"); shift 2 ;;
        --src) need_value "$@"; [[ "$2" =~ ^(17|25)=(.+)$ ]] || die "--src wants 17=DIR or 25=DIR, got '$2'"
               SRC_OVERRIDE[${BASH_REMATCH[1]}]="$(realpath "${BASH_REMATCH[2]}")"; shift 2 ;;
        --fetch-only) FETCH_ONLY=1; shift ;;
        --fresh-plain) FRESH_PLAIN=1; shift ;;
        --out) need_value "$@"; OUT="$2"; shift 2 ;;
        --known) need_value "$@"; KNOWN_FILE="$2"; shift 2 ;;
        --retries) need_value "$@"; RETRIES="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) PATHS+=("${1#test/jdk/}"); shift ;;
    esac
done
case "$SUITE" in rmi) SUITES=(rmi) ;; serial) SUITES=(serial) ;; jmx) SUITES=(jmx) ;; all) SUITES=(rmi serial jmx) ;;
    *) die "--suite must be rmi, serial, jmx or all, got '$SUITE'" ;; esac
case "$JDKS_ARG" in all) JDKS=(17 25) ;; *) JDKS=("$JDKS_ARG") ;; esac
[[ "$CONC" =~ ^[1-9][0-9]*$ ]] || die "--conc must be a positive whole number, got '$CONC'"
[[ "$TIMEOUT_FACTOR" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--timeout-factor must be a number, got '$TIMEOUT_FACTOR'"
[[ "$RETRIES" =~ ^[0-9]$ ]] || die "--retries must be a whole number from 0 to 9, got '$RETRIES'"
for v in "${!SRC_OVERRIDE[@]}"; do
    [[ -f "${SRC_OVERRIDE[$v]}/test/jdk/TEST.ROOT" && -d "${SRC_OVERRIDE[$v]}/test/lib" ]] \
        || die "--src $v=${SRC_OVERRIDE[$v]}: no test/jdk/TEST.ROOT and test/lib there (give the top of an OpenJDK source tree)"
done

# Test paths per suite: the suite's folders, or the given paths sorted into suites.
declare -A SUITE_PATHS=()
if [[ ${#PATHS[@]} -eq 0 ]]; then
    SUITE_PATHS[rmi]="${RMI_DIRS[*]}"; SUITE_PATHS[serial]="${SERIAL_DIRS[*]}"; SUITE_PATHS[jmx]="${JMX_DIRS[*]}"
else
    for p in "${PATHS[@]}"; do
        if [[ "$SUITE" != all ]]; then s="$SUITE"
        elif [[ "$p" == java/rmi* || "$p" == sun/rmi* ]]; then s=rmi
        elif [[ "$p" == javax/management* ]]; then s=jmx
        else s=serial; fi
        SUITE_PATHS[$s]="${SUITE_PATHS[$s]:-} $p"
    done
    declare -a keep=()
    for s in "${SUITES[@]}"; do [[ -n "${SUITE_PATHS[$s]:-}" ]] && keep+=("$s"); done
    SUITES=("${keep[@]}")
fi

# ---------------------------------------------------------------- one run at a time
# Two runs at once would share port 1099 and the 2 CPUs (tests time out, timings mean nothing) and fill the cache
# together: a second run waits for the first. Child processes do not inherit the lock (8>&- below).
mkdir -p "$CACHE"
exec 8>>"$CACHE/.lock"
if ! flock -n 8; then
    say "another conformance run holds $CACHE/.lock ($(cat "$CACHE/.lock.owner" 2>/dev/null || echo '?')); waiting for it to end"
    flock 8
fi
echo "pid $$, started $(date '+%F %T'): $PROG $ORIG_ARGS" >"$CACHE/.lock.owner"

# ---------------------------------------------------------------- the machine
T_START=$SECONDS
declare -A TIMING=()     # step -> seconds
declare -a TIMING_ORDER=()
timing() { TIMING[$1]=$2; TIMING_ORDER+=("$1"); }

if [[ "$BUILD" = 1 ]]; then
    bash "$ROOT/scripts/setup.sh" || die "scripts/setup.sh could not prepare this machine (see above)"
fi
for tool in apt-get apt-cache dpkg-deb dpkg tar xz; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing: this script needs Debian's apt and dpkg tools" \
        "and xz (Debian: apt-get install xz-utils); on another system pass --src 17=DIR/--src 25=DIR and put" \
        "jtreg in \$REMORA_CACHE/conformance/jtreg7 and jtreg8"
done
[[ -r "$KEYRING" ]] || die "no $KEYRING to check Debian's indexes: apt-get install debian-archive-keyring"

declare -A JDK_HOME=() JDK_VERSION=()
for v in "${JDKS[@]}"; do
    if [[ "$v" = 17 ]]; then home="$JDK17"; var=REMORA_JDK17; fix="apt-get install openjdk-17-jdk-headless (scripts/setup.sh does)"
    else home="$JDK25"; var=REMORA_JDK25; fix="install a JDK 25 (e.g. Eclipse Temurin 25 at /usr/lib/jvm/temurin-25-jdk-amd64)"; fi
    [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] \
        || die "no JDK $v at $home (need bin/java and bin/javac): $fix, or set $var=/path/to/jdk-$v; or run '$PROG $([[ $v = 17 ]] && echo 25 || echo 17)' for the other JDK alone"
    ver="$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$home/release" 2>/dev/null)"
    [[ -n "$ver" ]] || ver="$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')"
    [[ "${ver%%.*}" = "$v" ]] || die "$home is JDK '$ver', not JDK $v: set $var to a JDK $v"
    JDK_HOME[$v]="$home"; JDK_VERSION[$v]="$ver"
done

# ---------------------------------------------------------------- private apt state (never the system's)
APT_DIR="$CACHE/apt"
APT_OPTS=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
          -o "Dir::Etc::Preferences=$APT_DIR/preferences" -o "Dir::Etc::PreferencesParts=$APT_DIR/preferences.d"
          -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
          -o "APT::Architectures=$(dpkg --print-architecture)" -o "APT::Sandbox::User=$(id -un)"
          -o "Acquire::Languages=none" -o "Debug::NoLocking=1" -q)
APT_READY=0
apt_private_update() {
    [[ "$APT_READY" = 1 ]] && return 0
    mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/sources.list.d" "$APT_DIR/preferences.d"
    : >"$APT_DIR/preferences"
    cat >"$APT_DIR/sources.list" <<EOF
# written by $PROG: private to the conformance cache, never read by the machine's apt
deb-src [signed-by=$KEYRING] $DEBIAN_MIRROR bookworm main
deb-src [signed-by=$KEYRING] $SECURITY_MIRROR bookworm-security main
deb-src [signed-by=$KEYRING] $DEBIAN_MIRROR trixie main
deb-src [signed-by=$KEYRING] $SECURITY_MIRROR trixie-security main
deb-src [signed-by=$KEYRING] $DEBIAN_MIRROR sid main
deb [signed-by=$KEYRING] $DEBIAN_MIRROR bookworm main
deb [signed-by=$KEYRING] $SECURITY_MIRROR bookworm-security main
deb [signed-by=$KEYRING] $DEBIAN_MIRROR trixie main
deb [signed-by=$KEYRING] $SECURITY_MIRROR trixie-security main
EOF
    say "updating the private apt indexes (bookworm, trixie, sid; sources and binaries) in $APT_DIR"
    if ! apt-get "${APT_OPTS[@]}" update >"$APT_DIR/update.log" 2>&1; then
        tail -5 "$APT_DIR/update.log" >&2
        die "apt-get update of the private indexes failed (log: $APT_DIR/update.log): check that $DEBIAN_MIRROR is reachable (or set REMORA_DEBIAN_MIRROR)"
    fi
    APT_READY=1
}

# ---------------------------------------------------------------- jtreg
# jtreg_home NAME SUITE: unpacks Debian's package NAME (preferring suite SUITE) into $CACHE/NAME once.
jtreg_home() {
    local pkg="$1" suite="$2" dir="$CACHE/$1"
    if [[ ! -f "$dir/.complete" ]]; then
        apt_private_update
        rm -rf "$dir" "$CACHE/dl-$pkg"; mkdir -p "$CACHE/dl-$pkg"
        say "fetching Debian's $pkg (from $suite) into $dir"
        if ! (cd "$CACHE/dl-$pkg" && { apt-get "${APT_OPTS[@]}" download "$pkg/$suite" || apt-get "${APT_OPTS[@]}" download "$pkg"; }) \
                >"$CACHE/dl-$pkg.log" 2>&1; then
            tail -3 "$CACHE/dl-$pkg.log" >&2
            die "could not download Debian's $pkg (log: $CACHE/dl-$pkg.log)"
        fi
        mkdir -p "$dir/pkg"
        dpkg-deb -x "$CACHE/dl-$pkg"/*.deb "$dir/pkg" || die "could not unpack $CACHE/dl-$pkg/*.deb"
        [[ -f "$dir/pkg/usr/share/jtreg/lib/jtreg.jar" ]] || die "$pkg has no usr/share/jtreg/lib/jtreg.jar: its layout changed; adjust $PROG"
        basename "$CACHE/dl-$pkg"/*.deb >"$dir/deb-name"
        rm -rf "$CACHE/dl-$pkg" "$CACHE/dl-$pkg.log"
        touch "$dir/.complete"
    fi
    echo "$dir/pkg/usr/share/jtreg"
}
# jtreg_version HOME JAVA: e.g. 7.5.2+1
jtreg_version() {
    "$2" -jar "$1/lib/jtreg.jar" -version 2>/dev/null | sed -n 's/^jtreg \([0-9.]*\)[^+ ]*\(+[0-9]*\).*/\1\2/p' | head -1
}

# ---------------------------------------------------------------- test sources
# version_key V: a number that orders OpenJDK versions (17.0.21.1 -> 17002101...); ~ea versions sort just below.
version_key() {
    local up="${1%%+*}" ea=0
    up="${up%%-*}"
    if [[ "$up" == *~* ]]; then ea=1; up="${up%%~*}"; fi
    awk -v v="$up" -v ea="$ea" 'BEGIN { n = split(v, c, "."); k = 0
        for (i = 1; i <= 5; i++) k = k * 100 + (i <= n ? c[i] + 0 : 0); printf "%.0f\n", k * 10 - ea }'
}
# candidates FEATURE INSTALLED: Debian versions of openjdk-FEATURE's source, nearest to INSTALLED first.
candidates() {
    local feature="$1" installed="$2" ik v k d
    ik="$(version_key "$installed")"
    apt-cache "${APT_OPTS[@]}" showsrc "openjdk-$feature" 2>/dev/null | sed -n 's/^Version: //p' | sort -u |
        while read -r v; do
            k="$(version_key "$v")"
            d=$(( k > ik ? k - ik : ik - k ))
            echo "$d $v"
        done | sort -n -k1,1 -k2,2r | awk '{print $2}'
}
# fetch_tree FEATURE VERSION DEST: the test folders of openjdk-FEATURE's Debian source nearest VERSION, into DEST.
# Prints "openjdk-F DEBIAN-VERSION" on success.
fetch_tree() {
    local feature="$1" installed="$2" dest="$3" f v dl tarball top
    apt_private_update
    local -a features=("$feature" $((feature + 1)) $((feature - 1)))
    for f in "${features[@]}"; do
        local -a vers=()
        mapfile -t vers < <(candidates "$f" "$installed")
        [[ ${#vers[@]} -gt 0 ]] || continue
        [[ "$f" != "$feature" ]] && say "WARNING: no source of openjdk-$feature could be fetched; trying openjdk-$f's tests for JDK $feature"
        for v in "${vers[@]}"; do
            dl="$CACHE/dl-openjdk-$f"
            rm -rf "$dl"; mkdir -p "$dl"
            say "fetching Debian source openjdk-$f=$v (installed JDK: $installed)"
            if ! (cd "$dl" && apt-get "${APT_OPTS[@]}" source --download-only "openjdk-$f=$v") >"$dl.log" 2>&1; then
                say "  not served: $(grep -m1 -oE '(40[0-9]|50[0-9])[^[]*' "$dl.log" || tail -1 "$dl.log")"
                rm -rf "$dl" "$dl.log"
                continue
            fi
            tarball=""
            local t; for t in "$dl"/openjdk-"$f"_*.orig.tar.*; do
                [[ -f "$t" && "$t" != *.orig-* ]] && { tarball="$t"; break; }
            done
            [[ -n "$tarball" ]] || { say "  no orig tarball in openjdk-$f=$v"; continue; }
            top="$(tar -tf "$tarball" 2>/dev/null | head -1 || true)"; top="${top%%/*}"
            say "  extracting the test folders from $(basename "$tarball")"
            rm -rf "$dest"; mkdir -p "$dest"
            local -a pats=()
            local p; for p in "${SRC_PATHS[@]}"; do pats+=("$top/$p" "$top/$p/*"); done
            if ! tar -xf "$tarball" -C "$dest" --strip-components=1 --wildcards --no-anchored "${pats[@]}" 2>"$dl.tar.log"; then
                grep -v 'Not found in archive\|Exiting with failure' "$dl.tar.log" >&2 || true
            fi
            rm -rf "$dl" "$dl.log" "$dl.tar.log"
            [[ -f "$dest/test/jdk/TEST.ROOT" && -d "$dest/test/lib" && -d "$dest/test/jdk/java/rmi" ]] \
                || { say "  the tarball lacks test/jdk or test/lib"; continue; }
            echo "openjdk-$f $v"
            return 0
        done
    done
    return 1
}
# check_libraries DIR: warns about @library folders of the selected tests that the extraction left out.
check_libraries() {
    local tree="$1" file lib dir
    while IFS= read -r file; do
        dir="$(dirname "$file")"
        for lib in $(sed -n 's/.*@library[[:space:]]\+//p' "$file"); do
            case "$lib" in
                /test/lib*) lib="$tree/test/lib${lib#/test/lib}" ;;
                /*) lib="$tree/test/jdk$lib" ;;
                *) lib="$dir/$lib" ;;
            esac
            [[ -e "$lib" ]] || say "  note: $file: @library $lib is not in the cached tree"
        done
    done < <(grep -rl '@library' "$tree/test/jdk/java/rmi" "$tree/test/jdk/sun/rmi" "$tree/test/jdk/java/io" \
        "$tree/test/jdk/javax/management" 2>/dev/null)
    return 0
}
# test_tree V: the cached test tree for JDK V (fetched when missing); sets TREE_SRC[V].
declare -A TREE=() TREE_SRC=() TREE_JTREG=() TREE_JTREG_VERSION=()
prepare_tree() {
    local v="$1" ver="${JDK_VERSION[$1]}" dir got t0=$SECONDS
    if [[ -n "${SRC_OVERRIDE[$v]:-}" ]]; then
        TREE[$v]="${SRC_OVERRIDE[$v]}"; TREE_SRC[$v]="source tree ${SRC_OVERRIDE[$v]} (--src)"
        if [[ ! -f "${TREE[$v]}/test/jdk/TEST.groups" ]]; then die "${TREE[$v]}/test/jdk/TEST.groups missing (jtreg needs it)"; fi
        return 0
    fi
    dir="$CACHE/src/jdk-$ver"
    if [[ ! -f "$dir/.complete" ]] || [[ "$(sed -n 's/^layout=//p' "$dir/.complete")" != "$LAYOUT" ]]; then
        rm -rf "$dir"
        apt_private_update
        got="$(fetch_tree "$v" "$ver" "$dir/tree")" \
            || die "could not fetch the OpenJDK $v test sources: no version of openjdk-$v (nor $((v + 1)) or $((v - 1))) was served by $DEBIAN_MIRROR (see the lines above); give an OpenJDK source tree with --src $v=DIR"
        # TEST.groups names folders that are not extracted; jtreg refuses such a groups file.
        printf '# Replaced by %s: the conformance cache holds only the RMI, serialization and JMX tests.\n' "$PROG" \
            >"$dir/tree/test/jdk/TEST.groups"
        check_libraries "$dir/tree"
        printf 'layout=%s\nsource=%s\nfor=%s\n' "$LAYOUT" "$got" "$ver" >"$dir/.complete"
        timing "fetch sources for JDK $v" $((SECONDS - t0))
    fi
    TREE[$v]="$dir/tree"
    TREE_SRC[$v]="Debian source $(sed -n 's/^source=//p' "$dir/.complete")"
    local src_feature; src_feature="$(sed -n 's/^source=openjdk-\([0-9]*\) .*/\1/p' "$dir/.complete")"
    if [[ "$src_feature" != "$v" ]]; then
        TREE_SRC[$v]="${TREE_SRC[$v]} (WARNING: openjdk-$v's source was not served; tests of openjdk-$src_feature)"
        say "WARNING: JDK $v runs openjdk-$src_feature's tests (no source of openjdk-$v was served when the cache was filled)"
    fi
}
prepare_jtreg() {
    local v="$1" req home java="${JDK_HOME[$1]}/bin/java" t0=$SECONDS have
    req="$(sed -n 's/^[[:space:]]*requiredVersion[[:space:]]*=[[:space:]]*//p' "${TREE[$v]}/test/jdk/TEST.ROOT" | tr -d '[:space:]')"
    [[ -n "$req" ]] || req=7.0
    for pkg in jtreg7:bookworm jtreg8:trixie; do
        [[ -f "$CACHE/${pkg%%:*}/.complete" ]] || apt_private_update
        home="$(jtreg_home "${pkg%%:*}" "${pkg##*:}")"
        have="$(jtreg_version "$home" "$java")"
        [[ -n "$have" ]] || die "$home/lib/jtreg.jar does not run on $java (remove $CACHE/${pkg%%:*} to fetch it again)"
        if dpkg --compare-versions "$have" ge "$req"; then
            TREE_JTREG[$v]="$home"; TREE_JTREG_VERSION[$v]="${pkg%%:*} $have (TEST.ROOT requiredVersion=$req)"
            [[ $((SECONDS - t0)) -gt 1 ]] && timing "jtreg for JDK $v" $((SECONDS - t0))
            return 0
        fi
    done
    die "the JDK $v tests need jtreg $req; Debian's jtreg7 and jtreg8 are older (jtreg8 $have): update this script's package list"
}

for v in "${JDKS[@]}"; do prepare_tree "$v"; prepare_jtreg "$v"; done
for v in "${JDKS[@]}"; do say "JDK $v (${JDK_VERSION[$v]}, ${JDK_HOME[$v]}): ${TREE_SRC[$v]}; ${TREE_JTREG_VERSION[$v]}"; done
if [[ "$FETCH_ONLY" = 1 ]]; then
    for k in "${TIMING_ORDER[@]}"; do say "$k: $(fmt_s "${TIMING[$k]}")"; done
    say "cache ready in $CACHE"; exit 0
fi
[[ ${#SUITES[@]} -gt 0 ]] || die "no suite selected"

# ---------------------------------------------------------------- the agent jar
stale() { # stale TARGET DIR...: target missing or some file under DIR newer than it
    local target="$1"; shift
    [[ -e "$target" ]] || return 0
    local d
    for d in "$@"; do
        [[ -d "$d" ]] || continue
        [[ -n "$(find "$d" -type f -newer "$target" -print -quit 2>/dev/null)" ]] && return 0
    done
    return 1
}
STAMP="$(date +%Y%m%d-%H%M%S)"
RUN_DIR="$CACHE/runs/$STAMP-$$"
mkdir -p "$RUN_DIR"
if [[ -z "$AGENT" ]]; then
    AGENT="$ROOT/agent/target/remora-agent.jar"
    if [[ "$BUILD" = 1 ]] && stale "$AGENT" "$ROOT/agent/src/main" "$ROOT/rmi-shim/src/main" \
            "$ROOT/serializer/src/main" "$ROOT/fabric-jni/src/main"; then
        # -Dmaven.test.skip=true: the agent jar needs no test classes, and a half-written test elsewhere in the
        # working tree must not stop the referee (no module depends on another's test jar).
        say "building the agent (mvn -B -q -ntp -pl agent -am package -Dmaven.test.skip=true)"
        if ! (cd "$ROOT" && mvn -B -q -ntp -pl agent -am package -Dmaven.test.skip=true) >"$RUN_DIR/build-agent.log" 2>&1; then
            say "the agent build failed (log: $RUN_DIR/build-agent.log)"
            [[ -f "$AGENT" ]] && say "using the older $AGENT"
        fi
    fi
fi
[[ -f "$AGENT" ]] || die "no agent jar at $AGENT: build it (cd $ROOT && mvn -B -q -ntp -pl agent -am package -DskipTests) or pass --agent JAR"
cp "$AGENT" "$RUN_DIR/remora-agent.jar" || die "cannot copy $AGENT into $RUN_DIR"
AGENT_SRC="$AGENT"; AGENT="$RUN_DIR/remora-agent.jar"
AGENT_SHA="$(sha256sum "$AGENT" | cut -c1-12)"
GIT_HEAD="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
GIT_DIRTY="$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -qE '(agent|rmi-shim|serializer|fabric-jni)/' && echo ' (with uncommitted changes in the agent modules)' || true)"

# Does the agent install on each JDK (with the serial suite's property too)? A refused agent would make every
# run "agent" a plain run and the comparison meaningless.
declare -a CHECK_PROPS=(-Dremora.stats=true -Dremora.strict=true)
[[ " ${SUITES[*]} " == *" serial "* ]] && CHECK_PROPS+=(-Dremora.oos=fast)
for v in "${JDKS[@]}"; do
    out="$(env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u JDK_JAVA_OPTIONS timeout 120 \
        "${JDK_HOME[$v]}/bin/java" -javaagent:"$AGENT" "${CHECK_PROPS[@]}" -version 2>&1)" || true
    grep -q '^\[remora\] stats:' <<<"$out" \
        || die "the agent does not install on JDK $v (java -javaagent:$AGENT_SRC ${CHECK_PROPS[*]} -version):$(grep -m3 -i 'remora\|error\|exception' <<<"$out" | sed 's/^/ /' | tr '\n' ' ')"
done

# Old runs: keep the last KEEP_RUNS.
{ ls -1d "$CACHE"/runs/*/ 2>/dev/null || true; } | sort | head -n -"$KEEP_RUNS" | while read -r d; do rm -rf "$d"; done

[[ -n "$OUT" ]] || OUT="$ROOT/results/conformance-$STAMP"
mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"

# ---------------------------------------------------------------- format-bound list
declare -A EXEMPT=()
if [[ -f "$FORMAT_BOUND" ]]; then
    n=0
    while IFS= read -r line || [[ -n "$line" ]]; do
        n=$((n + 1))
        line="${line%%$'\r'}"
        [[ -z "${line//[[:space:]]/}" || "$line" =~ ^[[:space:]]*# ]] && continue
        read -r t reason <<<"$line"
        [[ -n "$reason" ]] || die "$FORMAT_BOUND line $n: '$t' has no reason after it (one line: test path, then why it reads the JDK's own byte format)"
        EXEMPT["${t#test/jdk/}"]="$reason"
    done <"$FORMAT_BOUND"
fi
# ---------------------------------------------------------------- known divergences (--known)
declare -A KNOWN=()
if [[ -n "$KNOWN_FILE" ]]; then
    [[ -f "$KNOWN_FILE" ]] || die "--known $KNOWN_FILE: no such file"
    n=0
    while IFS= read -r line || [[ -n "$line" ]]; do
        n=$((n + 1))
        line="${line%%$'\r'}"
        [[ -z "${line//[[:space:]]/}" || "$line" =~ ^[[:space:]]*# ]] && continue
        read -r kj ks kt reason <<<"$line"
        [[ "$kj" =~ ^(17|25|all)$ && "$ks" =~ ^(rmi|serial|jmx)$ && -n "$kt" && -n "$reason" ]] \
            || die "$KNOWN_FILE line $n: expected '<17|25|all> <rmi|serial|jmx> <test path> <reason>'"
        KNOWN["$kj $ks ${kt#test/jdk/}"]="$reason"
    done <"$KNOWN_FILE"
fi
known_reason() { # known_reason JDK SUITE TEST: the --known file's reason, or nothing
    local r="${KNOWN[$1 $2 $3]:-${KNOWN[all $2 $3]:-}}"
    [[ -z "$r" ]] && r="${KNOWN[$1 $2 ${3%%#*}]:-${KNOWN[all $2 ${3%%#*}]:-}}"
    echo "$r"
}

exempt_reason() { # the list's reason for test $1 (a file or one of its #ids), or nothing
    local t="$1"
    if [[ -n "${EXEMPT[$t]:-}" ]]; then echo "${EXEMPT[$t]}"; return; fi
    if [[ -n "${EXEMPT[${t%%#*}]:-}" ]]; then echo "${EXEMPT[${t%%#*}]}"; fi
}
# excuse JDK SUITE TEST: why a test that passes plainly may fail with the agent without failing the run,
# "format-bound: REASON" (serial suite) or "known: REASON" (--known), or nothing
excuse() {
    local r=""
    [[ "$2" = serial ]] && r="$(exempt_reason "$3")"
    if [[ -n "$r" ]]; then echo "format-bound: $r"; return; fi
    r="$(known_reason "$1" "$2" "$3")"
    if [[ -n "$r" ]]; then echo "known: $r"; fi
}

# ---------------------------------------------------------------- cleanup
JTREG_PID=""
shm_cleanup() {
    local f pid n=0
    for f in /dev/shm/*; do
        [[ -e "$f" ]] || continue
        [[ "$(basename "$f")" =~ ^([0-9]+):([0-9]+|remora):[0-9]+$ ]] || continue
        pid="${BASH_REMATCH[1]}"
        if [[ ! -d "/proc/$pid" ]]; then rm -f "$f" 2>/dev/null && n=$((n + 1)); fi
    done
    [[ $n -gt 0 ]] && say "removed $n /dev/shm files of dead processes"
    return 0
}
on_exit() {
    if [[ -n "$JTREG_PID" ]] && kill -0 "$JTREG_PID" 2>/dev/null; then
        kill "$JTREG_PID" 2>/dev/null || true; sleep 2; kill -9 "$JTREG_PID" 2>/dev/null || true
    fi
    shm_cleanup
}
trap on_exit EXIT
trap 'say "interrupted; stopping jtreg"; exit 130' INT TERM

# ---------------------------------------------------------------- port 1099
port_1099_free() {
    if command -v ss >/dev/null 2>&1; then
        [[ -z "$(ss -Hltn 'sport = :1099' 2>/dev/null)" ]]
    else
        ! (exec 3<>/dev/tcp/127.0.0.1/1099) 2>/dev/null
    fi
}
wait_port_1099() {
    local i
    for i in $(seq 1 24); do
        port_1099_free && return 0
        [[ $i = 1 ]] && say "port 1099 is held ($(ss -Hltnp 'sport = :1099' 2>/dev/null | grep -o 'users:.*' | head -1)); waiting up to 2 minutes (the RMI tests' default registry port)"
        sleep 5
    done
    die "port 1099 is still held by: $(ss -Hltnp 'sport = :1099' 2>/dev/null | grep -o 'users:.*' | head -1); stop that process (tests of the default registry port fail while it runs)"
}

# ---------------------------------------------------------------- one jtreg run
declare -A RES_P=() RES_F=() RES_E=() RES_N=() RES_T=() RES_TOTAL=()
# run_jtreg V SUITE RUN(plain|agent|agent-againN) [TEST...]: the suite's folders, or only the tests given
run_jtreg() {
    local v="$1" suite="$2" run="$3" key="$1-$2-$3" dir="$RUN_DIR/$1-$2-$3" t0=$SECONDS rc=0 done_n bad_n expect
    local tree="${TREE[$v]}" home="${TREE_JTREG[$v]}"
    local -a paths=() args=() javaopts=() wanted=()
    local p
    shift 3
    if [[ $# -gt 0 ]]; then wanted=("$@"); else read -r -a wanted <<<"${SUITE_PATHS[$suite]}"; fi
    for p in "${wanted[@]}"; do
        if [[ -e "$tree/test/jdk/${p%%#*}" ]]; then paths+=("$tree/test/jdk/$p")
        else say "note: $p is not in the JDK $v test tree; skipped"; fi
    done
    [[ ${#paths[@]} -gt 0 ]] || { say "no tests of suite $suite for JDK $v"; return 1; }
    if [[ "$run" = agent* ]]; then
        javaopts=("-javaoption:-javaagent:$AGENT")
        [[ "$suite" = serial ]] && javaopts+=("-javaoption:-Dremora.oos=fast")
    fi
    [[ "$suite" = serial ]] || wait_port_1099 # rmi and jmx tests may use the default registry port
    mkdir -p "$dir"
    args=(-jdk:"${JDK_HOME[$v]}" -agentvm -conc:"$CONC" -timeoutFactor:"$TIMEOUT_FACTOR" -verbose:summary
          -exclude:"$tree/test/jdk/ProblemList.txt" -w:"$dir/work" -r:"$dir/report"
          ${javaopts[@]+"${javaopts[@]}"} ${EXTRA_OPTS[@]+"${EXTRA_OPTS[@]}"} "${paths[@]}")
    printf '%q ' "${JDK_HOME[$v]}/bin/java" -jar "$home/lib/jtreg.jar" "${args[@]}" >"$dir/command.txt"; echo >>"$dir/command.txt"
    expect="${RES_TOTAL[$v-$suite-plain]:-}"
    [[ $# -gt 0 ]] && expect=$#
    say "JDK $v, $suite suite, $run run: jtreg started${*:+ for ${#paths[@]} test(s)} (log: $dir/jtreg.log)"
    env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS -u JDK_JAVA_OPTIONS -u JAVA_HOME \
        "${JDK_HOME[$v]}/bin/java" -jar "$home/lib/jtreg.jar" "${args[@]}" >"$dir/jtreg.log" 2>&1 8>&- &
    JTREG_PID=$!
    while kill -0 "$JTREG_PID" 2>/dev/null; do
        for _ in $(seq 1 30); do sleep 1; kill -0 "$JTREG_PID" 2>/dev/null || break; done
        kill -0 "$JTREG_PID" 2>/dev/null || break
        done_n="$(grep -cE '^(Passed|FAILED|Error|Failed):' "$dir/jtreg.log" 2>/dev/null || true)"
        bad_n="$(grep -cE '^(FAILED|Error|Failed):' "$dir/jtreg.log" 2>/dev/null || true)"
        say "JDK $v, $suite suite, $run run: ${done_n:-0}${expect:+ of about $expect} tests done, $(fmt_s $((SECONDS - t0))) elapsed (${bad_n:-0} not passed)"
    done
    wait "$JTREG_PID" || rc=$?
    JTREG_PID=""
    local secs=$((SECONDS - t0))
    timing "JDK $v $suite $run${*:+ (${#paths[@]} test(s) again)}" "$secs"
    local summary="$dir/report/text/summary.txt"
    if [[ ! -f "$summary" ]]; then
        tail -20 "$dir/jtreg.log" >&2
        die "jtreg did not run the JDK $v $suite tests ($run; exit $rc; log: $dir/jtreg.log)"
    fi
    cp "$summary" "$OUT/summary-$key.txt"
    count_results "$key" "$summary" "$secs"
    say "JDK $v, $suite suite, $run run: passed ${RES_P[$key]}, failed ${RES_F[$key]}, error ${RES_E[$key]} in $(fmt_s "$secs")"
}
# count_results KEY SUMMARY SECONDS
count_results() {
    local key="$1" summary="$2"
    RES_P[$key]=$(grep -c ' Passed\. ' "$summary" || true)
    RES_F[$key]=$(grep -c ' Failed\. ' "$summary" || true)
    RES_E[$key]=$(grep -c ' Error\. ' "$summary" || true)
    RES_T[$key]=$3
    RES_TOTAL[$key]=$(grep -c . "$summary" || true)
    RES_N[$key]=$(( RES_TOTAL[$key] - RES_P[$key] - RES_F[$key] - RES_E[$key] ))
}

# ---------------------------------------------------------------- cached plain runs
# A plain run's results depend on the JDK build, the test tree, jtreg, the options and the machine, not on Remora.
declare -A PLAIN_CACHED=()   # "V-SUITE" -> "date of the cached run; N re-run"
plain_dir() { # plain_dir V SUITE: the cache folder for this plain run (printed), or nothing when it is not cacheable
    local v="$1" suite="$2"
    [[ ${#PATHS[@]} -eq 0 && -z "${SRC_OVERRIDE[$v]:-}" ]] || return 0
    local id
    id="$(printf '%s\n' "$PLAIN_FORMAT" "${JDK_HOME[$v]}" "${JDK_VERSION[$v]}" \
            "$(stat -c '%s %Y' "${JDK_HOME[$v]}/lib/modules" 2>/dev/null)" "${TREE_SRC[$v]}" "$LAYOUT" \
            "${TREE_JTREG_VERSION[$v]}" "$suite" "${SUITE_PATHS[$suite]}" "$CONC" "$TIMEOUT_FACTOR" \
            "${EXTRA_OPTS[*]:-}" | sha256sum | cut -c1-16)"
    echo "$CACHE/plain/$v-$suite-$id"
}
# plain_usable DIR: plain_dir's folder holds a plain run of the last PLAIN_DAYS days (and --fresh-plain was not given)
plain_usable() {
    local d="$1"
    [[ "$FRESH_PLAIN" = 0 && -n "$d" && -f "$d/summary.txt" && -f "$d/made" ]] || return 1
    [[ $(( $(date +%s) - $(cat "$d/made") )) -lt $(( PLAIN_DAYS * 86400 )) ]]
}
# plain_store V SUITE DIR: the plain run just made, into plain_dir's folder (nothing when it is not cacheable)
plain_store() {
    local d="$3"
    [[ -n "$d" ]] || return 0
    rm -rf "$d.tmp"; mkdir -p "$d.tmp"
    cp "$OUT/summary-$1-$2-plain.txt" "$d.tmp/summary.txt"
    echo "${RES_T[$1-$2-plain]}" >"$d.tmp/seconds"
    date +%s >"$d.tmp/made"
    rm -rf "$d"; mv "$d.tmp" "$d"
}
# plain_recheck V SUITE DIR: with the cached plain run in DIR: every test that did not pass with the agent (and is
# not format-bound) runs plainly again now, and its result replaces the cached one.
plain_recheck() {
    local v="$1" suite="$2" key="$1-$2-plain" d="$3" made t st
    made="$(date -d "@$(cat "$d/made")" '+%Y-%m-%d %H:%M')"
    local -a again=()
    while read -r t st; do
        [[ "$st" = Passed ]] && continue
        [[ "$suite" = serial && -n "$(exempt_reason "$t")" ]] && continue
        again+=("$t")
    done < <(status_map "$OUT/summary-$v-$suite-agent.txt")
    local secs=0
    cp "$d/summary.txt" "$OUT/summary-$key.txt"
    if [[ ${#again[@]} -gt 0 ]]; then
        run_jtreg "$v" "$suite" plain "${again[@]}"
        secs="${RES_T[$key]}"
        # the fresh lines replace the cached ones
        # (a test jtreg did not report keeps its cached line: if that says Passed, a failure with the agent counts)
        awk -v fresh="$RUN_DIR/$key/report/text/summary.txt" '
            BEGIN { while ((getline line < fresh) > 0) { split(line, w, " "); if (w[1] != "") f[w[1]] = line } }
            ($1 in f) { print f[$1]; seen[$1] = 1; next } { print }
            END { for (t in f) if (!(t in seen)) print f[t] }' "$d/summary.txt" >"$OUT/summary-$key.txt"
    else
        mkdir -p "$RUN_DIR/$key"
        timing "JDK $v $suite plain (cached)" 0
    fi
    count_results "$key" "$OUT/summary-$key.txt" "$secs"
    PLAIN_CACHED[$v-$suite]="results of $made (cached; the whole run took $(fmt_s "$(cat "$d/seconds")")), with the ${#again[@]} test(s) that did not pass with the agent run plainly again now"
    say "JDK $v, $suite suite, plain: cached run of $made; ${#again[@]} test(s) run again now"
}

# agent_recheck V SUITE: every test that passed plainly and not with the agent (neither format-bound nor known) runs
# with the agent again, up to RETRIES times; one that passes in such a run is intermittent (INTERMITTENT), not a
# regression. Its failing run stays the one the report shows the reason of.
declare -A INTERMITTENT=()   # "V-SUITE-TEST" -> "passed in re-run k of N with the agent"
agent_recheck() {
    local v="$1" suite="$2" t a b k key
    local -a again=()
    while read -r t a b; do
        [[ "$a" = Passed && "$b" != Passed ]] || continue
        [[ -n "$(excuse "$v" "$suite" "$t")" ]] && continue
        again+=("$t")
    done < <(join -a1 -a2 -e missing -o 0,1.2,2.2 <(status_map "$OUT/summary-$v-$suite-plain.txt") \
                                                   <(status_map "$OUT/summary-$v-$suite-agent.txt"))
    for ((k = 1; k <= RETRIES && ${#again[@]} > 0; k++)); do
        key="$v-$suite-agent-again$k"
        say "JDK $v, $suite suite: ${#again[@]} test(s) passed plainly but not with the agent; with the agent again ($k of $RETRIES)"
        run_jtreg "$v" "$suite" "agent-again$k" "${again[@]}" || break
        local -a still=()
        for t in "${again[@]}"; do
            if [[ "$(status_map "$OUT/summary-$key.txt" | awk -v t="$t" '$1 == t {print $2}')" = Passed ]]; then
                INTERMITTENT[$v-$suite-$t]="passed in re-run $k of $RETRIES with the agent"
            else
                still+=("$t")
            fi
        done
        again=(${still[@]+"${still[@]}"})
    done
    return 0
}

# status_map FILE: "test status" lines from a jtreg summary.txt
status_map() { awk '{ s = $2; sub(/\.$/, "", s); if (s == "Not") s = "NotRun"; print $1, s }' "$1" | sort; }
# why WORKDIR TEST SUMMARY: first line of jtreg's reason and the first exception line of the test's .jtr
why() {
    local work="$1" t="$2" summary="$3" base jtr reason exc
    reason="$(awk -v t="$t" '$1 == t { $1 = ""; sub(/^ +/, ""); print; exit }' "$summary" | cut -c1-240)"
    base="${t%%#*}"; base="${base%.*}"
    if [[ "$t" == *#* ]]; then jtr="$work/${base}_${t##*#}.jtr"; else jtr="$work/$base.jtr"; fi
    exc=""
    if [[ -f "$jtr" ]]; then
        # the first line that names a Throwable (java.lang.RuntimeException: ..., TestFailedException: ...)
        exc="$(awk '/^#section:/ { insec = 1 } insec && /^----------(System\.out|System\.err|output)/ { out = 1; next }
                    out && /^----------/ { out = 0 }
                    out && /(^|[ :])([A-Za-z_$][A-Za-z0-9_$]*\.)*[A-Z][A-Za-z0-9_$]*(Exception|Error)(:|$)/ && !/^[ \t]*at / {
                        sub(/^[ \t]+/, ""); print; exit }' "$jtr" | cut -c1-240)"
    fi
    if [[ -n "$exc" && "$reason" != *"$exc"* ]]; then echo "$reason | $exc"; else echo "$reason"; fi
}

# ---------------------------------------------------------------- run everything
# Old cached plain runs go.
[[ -d "$CACHE/plain" ]] && find "$CACHE/plain" -mindepth 2 -maxdepth 2 -name made -mtime +"$PLAIN_DAYS" -printf '%h\0' 2>/dev/null |
    xargs -0 -r rm -rf
for suite in "${SUITES[@]}"; do
    for v in "${JDKS[@]}"; do
        pd="$(plain_dir "$v" "$suite")"
        if plain_usable "$pd"; then
            RES_TOTAL[$v-$suite-plain]=$(grep -c . "$pd/summary.txt" || true)
            run_jtreg "$v" "$suite" agent
            plain_recheck "$v" "$suite" "$pd"
        else
            run_jtreg "$v" "$suite" plain
            plain_store "$v" "$suite" "$pd"
            run_jtreg "$v" "$suite" agent
        fi
        agent_recheck "$v" "$suite"
    done
done

# ---------------------------------------------------------------- report
REPORT="$OUT/report.md"
REGRESSIONS=0; EXEMPTED=0; KNOWN_SEEN=0; INTERMITTENT_SEEN=0
{
    echo "# Conformance: OpenJDK jtreg tests, plain vs Remora agent ($STAMP)"
    echo
    echo "- agent: \`$AGENT_SRC\` (sha256 $AGENT_SHA), repository at $GIT_HEAD$GIT_DIRTY"
    for v in "${JDKS[@]}"; do
        echo "- JDK $v: ${JDK_VERSION[$v]} at \`${JDK_HOME[$v]}\`; tests: ${TREE_SRC[$v]}; ${TREE_JTREG_VERSION[$v]}"
    done
    echo "- jtreg options: -agentvm -conc:$CONC -timeoutFactor:$TIMEOUT_FACTOR, ProblemList.txt excluded${EXTRA_OPTS[*]:+, ${EXTRA_OPTS[*]}}"
    echo "- agent run: \`-javaoption:-javaagent:remora-agent.jar\` (serial suite also \`-javaoption:-Dremora.oos=fast\`)"
    echo "- jtreg work and report folders: \`$RUN_DIR\`"
    echo
} >"$REPORT"

print_both() { echo "$*"; echo "$*" >>"$REPORT"; }
for suite in "${SUITES[@]}"; do
    for v in "${JDKS[@]}"; do
        print_both ""
        print_both "## $suite suite, JDK $v (${SUITE_PATHS[$suite]# })"
        print_both ""
        print_both "| run | passed | failed | error | other | time |"
        print_both "|---|---:|---:|---:|---:|---:|"
        for run in plain agent; do
            k="$v-$suite-$run"
            tm="$(fmt_s "${RES_T[$k]}")"
            [[ "$run" = plain && -n "${PLAIN_CACHED[$v-$suite]:-}" ]] && tm="$tm (cached)"
            print_both "| $run | ${RES_P[$k]} | ${RES_F[$k]} | ${RES_E[$k]} | ${RES_N[$k]} | $tm |"
        done
        [[ -n "${PLAIN_CACHED[$v-$suite]:-}" ]] && { print_both ""; print_both "Plain: ${PLAIN_CACHED[$v-$suite]} (--fresh-plain runs the whole suite)."; }
        plain_s="$OUT/summary-$v-$suite-plain.txt"; agent_s="$OUT/summary-$v-$suite-agent.txt"
        diffs="$(join -a1 -a2 -e missing -o 0,1.2,2.2 <(status_map "$plain_s") <(status_map "$agent_s") | awk '$2 != $3')"
        print_both ""
        if [[ -z "$diffs" ]]; then
            print_both "No test differs between the runs."
            continue
        fi
        print_both "Tests whose result differs (plain -> agent):"
        print_both ""
        while read -r t a b; do
            mark=""; src_s="$agent_s"; work="$RUN_DIR/$v-$suite-agent/work"
            if [[ "$a" = Passed ]]; then
                exc="$(excuse "$v" "$suite" "$t")"
                if [[ "$exc" = format-bound:* ]]; then mark=" ($exc)"; EXEMPTED=$((EXEMPTED + 1))
                elif [[ -n "$exc" ]]; then mark=" ($exc)"; KNOWN_SEEN=$((KNOWN_SEEN + 1))
                elif [[ -n "${INTERMITTENT[$v-$suite-$t]:-}" ]]; then
                    mark=" **intermittent**: ${INTERMITTENT[$v-$suite-$t]}"; INTERMITTENT_SEEN=$((INTERMITTENT_SEEN + 1))
                else mark=" **REGRESSION**"; REGRESSIONS=$((REGRESSIONS + 1)); fi
            else
                src_s="$plain_s"; work="$RUN_DIR/$v-$suite-plain/work"
            fi
            reason=""
            if [[ "$b" != Passed && "$b" != missing ]]; then reason="$(why "$RUN_DIR/$v-$suite-agent/work" "$t" "$agent_s")"
            elif [[ "$a" != Passed && "$a" != missing ]]; then reason="plain: $(why "$work" "$t" "$src_s")"; fi
            print_both "- \`$t\`: $a -> $b$mark${reason:+ -- $reason}"
        done <<<"$diffs"
    done
done

if [[ ${#KNOWN[@]} -gt 0 ]]; then
    fixed=()
    for k in "${!KNOWN[@]}"; do
        read -r kj ks kt <<<"$k"
        for suite in "${SUITES[@]}"; do
            [[ "$suite" = "$ks" ]] || continue
            for v in "${JDKS[@]}"; do
                [[ "$kj" = all || "$kj" = "$v" ]] || continue
                st="$(status_map "$OUT/summary-$v-$suite-agent.txt" | awk -v t="$kt" '$1 == t {print $2}')"
                [[ "$st" = Passed ]] && fixed+=("JDK $v $suite: \`$kt\`")
            done
        done
    done
    if [[ ${#fixed[@]} -gt 0 ]]; then
        print_both ""
        print_both "Known divergences that pass now (remove their lines from $(basename "$KNOWN_FILE")):"
        for f in "${fixed[@]}"; do print_both "- $f"; done
    fi
fi

print_both ""
print_both "## Timings"
print_both ""
for k in "${TIMING_ORDER[@]}"; do print_both "- $k: $(fmt_s "${TIMING[$k]}")"; done
print_both "- total: $(fmt_s $((SECONDS - T_START)))"
print_both ""
INTERMITTENT_TEXT=""
[[ $INTERMITTENT_SEEN -gt 0 ]] && INTERMITTENT_TEXT=" $INTERMITTENT_SEEN test(s) failed with the agent and then passed in a re-run with it (intermittent, listed above: read their reasons)."
if [[ $REGRESSIONS -gt 0 ]]; then
    print_both "RESULT: $REGRESSIONS test(s) pass plainly but not with the agent$([[ $EXEMPTED -gt 0 ]] && echo "; $EXEMPTED format-bound test(s) exempt")$([[ $KNOWN_SEEN -gt 0 ]] && echo "; $KNOWN_SEEN known divergence(s)").$INTERMITTENT_TEXT"
else
    print_both "RESULT: no test passes plainly and fails with the agent$([[ $EXEMPTED -gt 0 || $KNOWN_SEEN -gt 0 ]] && echo " except $EXEMPTED format-bound and $KNOWN_SEEN known divergence(s)").$INTERMITTENT_TEXT"
fi
say "report: $REPORT"
[[ $REGRESSIONS -eq 0 ]] || exit 1
exit 0
