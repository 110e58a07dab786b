#!/usr/bin/env bash
# Writes Sources/wspipe/symbol-order.txt: the functions a typical run
# executes, which the release link (Package.swift) places next to each other.
#
# Why: the kernel maps an executable's pages 64 KiB around each page fault,
# and every mapped page counts in the resident size. Unordered, the few
# hundred KiB of code a run uses are spread over the 8 MiB text segment and
# about 4 MiB of it ends up resident; ordered, about 1 MiB (and start-up
# takes fewer page faults).
#
# How: a release wspipe runs both roles under valgrind's callgrind (which
# records every function executed, with its linker name): a --listen server
# broadcasting stdin lines, and a client uploading lines and printing the
# broadcast. The union of the functions named, in the order callgrind lists
# them, is the file. Names that change later (edited code) are simply not
# found by the linker (--no-warn-symbol-ordering); rerun this after large
# changes. Needs valgrind; not part of Tests/run.
#
# Usage: Tests/bench/symbol-order.sh [path/to/release/wspipe]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=${1:-.build/release/wspipe}
OUT=Sources/wspipe/symbol-order.txt
command -v valgrind >/dev/null || { echo "symbol-order.sh: needs valgrind" >&2; exit 2; }
[[ -x $BIN ]] || swift build -c release --product wspipe

TMP=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
CG="valgrind --tool=callgrind --demangle=no --dump-instr=no"

python3 - "$TMP" <<'EOF'
import sys
d = sys.argv[1]
with open(d + '/up.txt', 'w') as f:
    for i in range(3000):
        f.write('{"type":"chat","seq":%d,"pad":"%s"}\n' % (i, 'x' * (60 + i % 200)))
    f.write('{"$text":"plain text"}\n{"$binary":"AAEC"}\nnot json\n')
with open(d + '/down.txt', 'w') as f:
    for i in range(3000):
        f.write('{"type":"event","n":%d,"ok":true,"v":[1.5,null,"\\u00e9"]}\n' % i)
EOF

# The server: stdin held open (fd 3) until the client has run.
mkfifo "$TMP/in"
$CG --callgrind-out-file="$TMP/server.cg" "$BIN" --listen 127.0.0.1:0 --once \
    <"$TMP/in" >"$TMP/server.out" 2>"$TMP/server.err" &
SERVER=$!
exec 3>"$TMP/in"
for _ in $(seq 200); do grep -q 'ws://' "$TMP/server.err" 2>/dev/null && break; sleep 0.1; done
URL=$(grep -o 'ws://[^ ]*' "$TMP/server.err" | head -1)
[[ -n $URL ]] || { echo "symbol-order.sh: the server did not say its URL" >&2; cat "$TMP/server.err" >&2; exit 1; }

# The client: uploads its lines, receives what the server broadcasts.
{ cat "$TMP/up.txt"; sleep 3; } | $CG --callgrind-out-file="$TMP/client.cg" "$BIN" "$URL" \
    >"$TMP/client.out" 2>"$TMP/client.err" &
CLIENT=$!
sleep 1
cat "$TMP/down.txt" >&3
wait $CLIENT || true
exec 3>&-
wait $SERVER || true

# Names callgrind could not resolve (0x...) and names several local symbols
# share (merged closure thunks such as objectdestroyTm) are left out: lld
# would give the priority to every section holding such a name, pulling
# whole unrelated .text sections (the regex library's, 480 KiB) forward.
nm --defined-only "$BIN" | awk '{print $3}' | sort | uniq -d >"$TMP/ambiguous"
{
    for f in "$TMP/client.cg" "$TMP/server.cg"; do
        sed -nE 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$f"
    done
} | awk '!seen[$0]++' | grep -v '^0x' | grep -vxFf "$TMP/ambiguous" >"$OUT"
echo "symbol-order.sh: $(wc -l <"$OUT") functions in $OUT ($(wc -l <"$TMP/client.out") lines broadcast, $(wc -l <"$TMP/server.out") uploaded)"
