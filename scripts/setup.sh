#!/usr/bin/env bash
# Installs what Remora's build, tests and benchmarks need on a fresh Debian/Ubuntu machine, and explains what it
# cannot install. Idempotent and quick when everything is there. Called by scripts/test.sh and scripts/compare.sh.
#
#   required: a JDK 17 (javac), Maven 3.8+, make and a C compiler (the libfabric JNI library)
#   optional: libfabric 1.17+ (libfabric-dev, libfabric1, libfabric-bin) for the fabric transport; without it the
#             native library is not built and Remora uses its socket transport (its tests skip with a message)
#             JDK 25 at /usr/lib/jvm/temurin-25-jdk-amd64 (or REMORA_JDK25) for the second integration-test run
#             valgrind (the C-level leak test), iproute2 (network-namespace tests, as root)
set -euo pipefail

JDK25="${REMORA_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
need=()      # Debian packages to install
missing=()   # what we could not install, with how

have() { command -v "$1" >/dev/null 2>&1; }

have javac && javac -version 2>&1 | grep -qE 'javac (17|1[89]|2[0-9])' || need+=(openjdk-17-jdk-headless)
have mvn || need+=(maven)
have make || need+=(make)
have cc || need+=(gcc)
[ -e /usr/include/rdma/fabric.h ] || need+=(libfabric-dev)
ldconfig -p 2>/dev/null | grep -q 'libfabric.so.1 ' || need+=(libfabric1)
have fi_info || need+=(libfabric-bin)
have valgrind || need+=(valgrind)
have ip || need+=(iproute2)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && have apt-get; then
    echo "[setup] installing: ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    missing+=("packages ${need[*]}: run as root: apt-get install ${need[*]}")
  fi
fi

if [ ! -x "$JDK25/bin/java" ]; then
  echo "[setup] note: no JDK 25 at $JDK25; the JDK 25 integration tests will be skipped." >&2
  echo "[setup]       Install a JDK 25 (e.g. Eclipse Temurin 25) there or set REMORA_JDK25=/path/to/jdk." >&2
fi

if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "[setup] missing: $m" >&2; done
  have javac && have mvn || { echo "[setup] cannot build without a JDK 17 and Maven" >&2; exit 1; }
fi
exit 0
