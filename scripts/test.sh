#!/usr/bin/env bash
# The test command (README; .ci/run calls it): set-up, then every tier in one Maven run:
#   unit tests (surefire), the native build and C-level tests, and the *IT integration tests (failsafe) that start
#   real server and client JVMs on JDK 17 and JDK 25 with and without -javaagent:remora-agent.jar.
# Extra arguments go to Maven, e.g. scripts/test.sh -pl agent -am
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
exec mvn -B -ntp -Dremora.jdk25="${REMORA_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}" verify "$@"
