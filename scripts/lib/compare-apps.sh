# shellcheck shell=bash
# scripts/compare.sh --apps: the seed papers' parallel applications (bench, dev.remora.bench.apps), each run as N
# rank JVMs by dev.remora.bench.apps.Launcher, plainly and under each agent configuration, in rounds. Sourced by
# compare.sh after it has read the options, built what is stale, checked the configurations (RUN, PROPS,
# jvm_opts_of, BASELINE, SKIPPED) and chosen the JDK; writes summary.md with a table per app, size and rank count,
# and a Figure 5 style box plot per app (plots/*.png) when bench/target/benchmarks.jar (JFreeChart) is there.

APPS_LIST="${APPS_LIST:-sor,asp,leq,radix,water,hamming,paraffin}"
APP_RANKS="${APP_RANKS:-2}"
APP_SIZES="${SIZES:-comm,compute}"
IFS=',' read -r -a APP_NAMES <<<"$APPS_LIST"
IFS=',' read -r -a RANK_COUNTS <<<"$APP_RANKS"
IFS=',' read -r -a SIZE_NAMES <<<"$APP_SIZES"
for n in "${RANK_COUNTS[@]}"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--ranks takes whole numbers above 0, e.g. 2,4; got '$n'"
done
for s in "${SIZE_NAMES[@]}"; do
    case "$s" in tiny|comm|compute) ;; *) die "--sizes with --apps takes tiny, comm and compute; got '$s'" ;; esac
done

# Placement: ranks round robin over the CPUs (parallel apps want them all); same: every rank on CPU 0.
case "$PIN" in
    same) APP_CPUS=0; PLACEMENT="same: every rank on CPU 0" ;;
    split|best) APP_CPUS="$(seq -s, 0 $((NCPU - 1)))"; PLACEMENT="split: rank i on CPU i mod $NCPU (taskset)" ;;
    none) APP_CPUS=none; PLACEMENT="none: unpinned ($NCPU CPUs)" ;;
esac

# The machine's wake-up cost, which moves the apps' times from day to day on a VM (a vCPU that halts when idle is
# woken through the host, dearer on some days than on others): a blocking round trip over a Unix domain socket
# between CPUs 1 and 0 (two cross-CPU wake-ups) and on CPU 0 alone, by bench's raw_tcp_pingpong (C, no JVM;
# built here when missing, it needs only a C compiler). Printed at the start and at the end of the run.
WAKE_BIN="$ROOT/bench/target/c/raw_tcp_pingpong"
if [[ ! -x "$WAKE_BIN" && "$BUILD" = 1 ]] && command -v make >/dev/null; then
    # OUT given whole: the target named here is then the one the Makefile has a rule for
    make -s -C "$ROOT/bench/src/main/c" OUT="$ROOT/bench/target/c" "$WAKE_BIN" >"$OUT/logs/build-wakeups.log" 2>&1 \
        || true
fi
wakeups() { # one line: the split and same-CPU medians, or why there are none
    if [[ ! -x "$WAKE_BIN" ]]; then
        if [[ -s "$OUT/logs/build-wakeups.log" ]]; then
            echo "not measured (no $WAKE_BIN; its build's output: $OUT/logs/build-wakeups.log)"
        else
            echo "not measured (no $WAKE_BIN: make -C bench/src/main/c)"
        fi
        return
    fi
    if ((NCPU < 2)); then echo "not measured (one CPU)"; return; fi
    local sock="${TMPDIR:-/tmp}/remora-wakeups-$$.sock" split same # short: a socket path has at most 107 bytes
    split="$(timeout 30 "$WAKE_BIN" -u "$sock" -s 64 -n 2000 -w 200 -m block -c 1 -C 0 2>/dev/null | cut -d, -f7)"
    same="$(timeout 30 "$WAKE_BIN" -u "$sock" -s 64 -n 2000 -w 200 -m block -c 0 -C 0 2>/dev/null | cut -d, -f7)"
    if [[ -z "$split" || -z "$same" ]]; then echo "not measured ($WAKE_BIN failed)"; return; fi
    echo "blocking Unix domain socket round trip, median of 2000: CPU 1 to 0 ${split} us (two cross-CPU wake-ups), on CPU 0 alone ${same} us"
}

{
    echo "Remora compare --apps $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $NCPU CPUs, $(uname -r)"
    echo "commit:     $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo ' (modified tree)')"
    echo "JDK:        $JDK_VERSION ($JAVA)"
    echo "placement:  $PLACEMENT"
    echo "load:       $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) (1/5/15-min load average at start; other work on the CPUs skews times)"
    echo "wake-ups:   $(wakeups)"
    echo "rounds:     $ROUNDS (configurations in table order in odd rounds, reversed in even ones)"
    echo "apps:       ${APP_NAMES[*]}; sizes ${SIZE_NAMES[*]}; ranks ${RANK_COUNTS[*]}"
    echo "JVM opts:   $JVM_OPTS"
    echo "configs:    ${RUN[*]} (baseline $BASELINE)"
    for s in "${SKIPPED[@]}"; do echo "skipped:    $s"; done
    for n in "${RANK_COUNTS[@]}"; do
        if ((n > NCPU)) && [[ "$PIN" != none ]]; then
            echo "warning:    $n ranks on $NCPU CPUs: spinning transports share a CPU and may collapse (FACTS.md)"
        fi
    done
} | tee "$OUT/header.txt" >&2
echo >&2

echo "config,round,app,size,ranks,wall_ms,compute_ms,comm_ms,cpu_ms,calls,bytes,check,call_ms" >"$OUT/raw/apps.csv"
FAILED=()
START=$SECONDS
for ((r = 1; r <= ROUNDS; r++)); do
    ORDER=("${RUN[@]}")
    if ((r % 2 == 0)); then
        ORDER=(); for ((i = ${#RUN[@]} - 1; i >= 0; i--)); do ORDER+=("${RUN[$i]}"); done
    fi
    for app in "${APP_NAMES[@]}"; do
        for size in "${SIZE_NAMES[@]}"; do
            for n in "${RANK_COUNTS[@]}"; do
                for c in "${ORDER[@]}"; do
                    tag="$c-r$r-$app-$size-$n"
                    [[ " ${FAILED[*]:-} " == *" $c|$app "* ]] && continue
                    rc=0
                    "$JAVA" -cp "$CLASSES" dev.remora.bench.apps.Launcher --app "$app" --ranks "$n" --size "$size" \
                        --java "$JAVA" --jvm-opts "$(jvm_opts_of "$c")" --cpus "$APP_CPUS" --timeout-s "$TIMEOUT_S" \
                        --log-dir "$OUT/logs" --tag "$tag" >"$OUT/logs/$tag.out" 2>"$OUT/logs/$tag.err" || rc=$?
                    line="$(grep '^app-run ' "$OUT/logs/$tag.out" | tail -1 || true)"
                    if [[ $rc -ne 0 || -z "$line" ]]; then
                        echo "compare.sh: $app $size with $n ranks under $c (round $r) failed (exit $rc):" \
                            "$(tail -n 3 "$OUT/logs/$tag.err" | tr '\n' ' ')" >&2
                        FAILED+=("$c|$app")
                        continue
                    fi
                    csv="$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                        print v["app"] "," v["size"] "," v["ranks"] "," v["wall_ms"] "," v["compute_ms"] "," \
                              v["comm_ms"] "," v["cpu_ms"] "," v["calls"] "," v["bytes"] "," v["check"] "," \
                              v["call_ms"] }' <<<"$line")"
                    echo "$c,$r,$csv" >>"$OUT/raw/apps.csv"
                    echo "  round $r/$ROUNDS $app $size x$n $c: $(cut -d' ' -f5-9 <<<"$line")" \
                        "($(( (SECONDS - START) / 60 )) min $(( (SECONDS - START) % 60 )) s elapsed)" >&2
                done
            done
        done
    done
done

WAKEUPS_END="$(wakeups)"
rm -rf "$OUT/tmp"; rmdir "$OUT/floor" 2>/dev/null || true
configs_csv="$(IFS=,; echo "${RUN[*]}")"
"$JAVA" -cp "$CLASSES" dev.remora.bench.apps.AppsReport --dir "$OUT" --configs "$configs_csv" --baseline "$BASELINE" \
    >/dev/null || die "could not build the report from $OUT/raw/apps.csv (see $OUT/logs)"
PLOT_JAR="$ROOT/bench/target/benchmarks.jar"
if [[ -f "$PLOT_JAR" ]] \
    && "$JAVA" -Djava.awt.headless=true -cp "$PLOT_JAR" dev.remora.bench.plot.SavedBoxPlot --in "$OUT/points-compute.csv" \
        --out-dir "$OUT/plots" --baseline "$BASELINE" --what "compute phase" >"$OUT/logs/plot.log" 2>&1 \
    && "$JAVA" -Djava.awt.headless=true -cp "$PLOT_JAR" dev.remora.bench.plot.SavedBoxPlot --in "$OUT/points-wall.csv" \
        --out-dir "$OUT/plots" --baseline "$BASELINE" --what "wall time" >>"$OUT/logs/plot.log" 2>&1; then
    echo "box plots: $OUT/plots" >&2
else
    echo "compare.sh: no box plots (need $PLOT_JAR: mvn -q -DskipTests package -pl bench -am; see $OUT/logs/plot.log)" >&2
    printf '\n(The box plots were not drawn: %s was missing or failed; see logs/plot.log.)\n' "$PLOT_JAR" >>"$OUT/summary.md"
fi
for f in "${FAILED[@]}"; do echo "FAILED ${f/|/ on }: see $OUT/logs" | tee -a "$OUT/summary.md" >&2; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" | tee -a "$OUT/summary.md" >&2
echo "wake-ups at end: $WAKEUPS_END" | tee -a "$OUT/summary.md" >&2
cat "$OUT/summary.md"
echo "results: $OUT/summary.md (rows: $OUT/raw/apps.csv, rank logs: $OUT/logs, plots: $OUT/plots)"
[[ ${#FAILED[@]} -eq 0 ]]
