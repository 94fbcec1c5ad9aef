#!/bin/sh
# Java FabricEndpoint against the C floor over one provider, in one run, with CPU placement in every line.
#
#   fabric-jni/scripts/measure-shm.sh [PROVIDER] [ITERS]      (default shm 20000; run from anywhere)
#
# Needs `mvn -pl fabric-jni package` (the .so in target/classes) and `make -C bench/src/main/c`.
# Prints the CSV of remora_fabric_pingpong (impl c) and FabricPingPong (impl java) for these placements:
#   split: client on CPU 1, server on CPU 0, busy polling and spin-then-block;
#   same:  both on CPU 0, spin-then-block (busy polling on one CPU collapses: shown with few iterations).
# client_cpu / server_cpu columns are what each process was allowed to run on.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
prov=${1:-shm}
n=${2:-20000}
w=$((n / 5))
floor="$root/bench/target/c/remora_fabric_pingpong"
[ -x "$floor" ] || make -s -C "$root/bench/src/main/c" >&2
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
cp="$here/target/classes"
echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs, $("$java" -version 2>&1 | head -1)"
echo "impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,p99_us,mb_per_s"
for mode in busy block; do
  "$floor" -p "$prov" -m "$mode" -c 1 -C 0 -n "$n" -w "$w" -s 64,100000
  taskset -c 1 "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.remora.fabric.tools.FabricPingPong \
    -p "$prov" -m "$mode" -C 0 -n "$n" -w "$w" -s 64,100000
done
"$floor" -p "$prov" -m block -c 0 -C 0 -n "$n" -w "$w" -s 64,100000
taskset -c 0 "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.remora.fabric.tools.FabricPingPong \
  -p "$prov" -m block -C 0 -n "$n" -w "$w" -s 64,100000
# the collapse, kept short: 200 round trips of 64 B
timeout 60 "$floor" -p "$prov" -m busy -c 0 -C 0 -n 200 -w 20 -s 64 || echo "c,$prov,busy,64,200,0,0,timeout,,"
