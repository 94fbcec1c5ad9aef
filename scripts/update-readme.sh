#!/usr/bin/env bash
# Regenerates README.md's property table from the declarations in agent/.../config/Property.java
# (ReadmeTableTest fails when the table is stale).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -pl agent -am package -DskipTests   # always: the table must come from the current declarations
table="$(java -jar agent/target/remora-agent.jar --properties-markdown)"
python3 - "$table" <<'PY'
import sys, re
table = sys.argv[1] + "\n"
begin = "<!-- remora-properties:begin (generated: scripts/update-readme.sh) -->\n"
end = "<!-- remora-properties:end -->"
text = open("README.md", encoding="utf-8").read()
b, e = text.index(begin), text.index(end)
open("README.md", "w", encoding="utf-8").write(text[:b + len(begin)] + table + text[e:])
PY
echo "README.md property table updated"
