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
# broadcast; then the same over wss:// (a test certificate made with the
# openssl CLI), which brings in OpenSSL's handshake, certificate check and
# record code; and a client whose stdin is a single line (the one-shot
# start-up path, as the shared bench's `start` scenario runs it). The union
# of the functions named, client first, in the order callgrind lists them,
# is the file. Names that change later (edited code) are simply not found
# by the linker (--no-warn-symbol-ordering); rerun this after large
# changes. Needs valgrind and openssl; not part of Tests/run.
#
# Usage: Tests/bench/symbol-order.sh [path/to/release/wspipe]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN=${1:-.build/release/wspipe}
OUT=Sources/wspipe/symbol-order.txt
for tool in valgrind openssl; do
    command -v $tool >/dev/null || { echo "symbol-order.sh: needs $tool" >&2; exit 2; }
done
[[ -x $BIN ]] || swift build -c release --product wspipe

TMP=$(mktemp -d)
SERVER=
trap 'exec 3>&- 2>/dev/null; [[ -n $SERVER ]] && kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
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
        f.write('{"event":"tick","n":%d,"ok":true,"v":[1.5,null,"\\u00e9"]}\n' % i)
EOF
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null

# One server and one client under callgrind: the server's stdin is held open
# (fd 3) until the client has run; `scheme` ws or wss.
pair() {
    local scheme=$1 name=$2 tls_server=() tls_client=()
    if [[ $scheme == wss ]]; then
        tls_server=(--cert "$TMP/cert.pem" --key "$TMP/key.pem")
        tls_client=(--cacert "$TMP/cert.pem")
    fi
    rm -f "$TMP/in"; mkfifo "$TMP/in"
    $CG --callgrind-out-file="$TMP/$name.server.cg" "$BIN" --listen 127.0.0.1:0 --once ${tls_server[@]+"${tls_server[@]}"} \
        <"$TMP/in" >"$TMP/$name.server.out" 2>"$TMP/$name.server.err" &
    SERVER=$!
    exec 3>"$TMP/in"
    for _ in $(seq 300); do grep -q 'wss\?://' "$TMP/$name.server.err" 2>/dev/null && break; sleep 0.1; done
    local url
    url=$(grep -o 'wss\?://[^ ]*' "$TMP/$name.server.err" | head -1)
    [[ -n $url ]] || { echo "symbol-order.sh: the $scheme server did not say its URL" >&2; cat "$TMP/$name.server.err" >&2; exit 1; }
    { cat "$TMP/up.txt"; sleep 3; } | $CG --callgrind-out-file="$TMP/$name.client.cg" "$BIN" ${tls_client[@]+"${tls_client[@]}"} "$url" \
        >"$TMP/$name.client.out" 2>"$TMP/$name.client.err" &
    local client=$!
    sleep 1
    cat "$TMP/down.txt" >&3
    wait $client || true
    exec 3>&-
    wait $SERVER || true
    SERVER=
    echo "symbol-order.sh: $scheme: $(wc -l <"$TMP/$name.client.out") lines broadcast, $(wc -l <"$TMP/$name.server.out") uploaded"
}

# The one-shot start: a server that answers, a client with one line of stdin.
oneshot() {
    rm -f "$TMP/in"; mkfifo "$TMP/in"
    "$BIN" --listen 127.0.0.1:0 --once <"$TMP/in" >"$TMP/oneshot.server.out" 2>"$TMP/oneshot.server.err" &
    SERVER=$!
    exec 3>"$TMP/in"
    for _ in $(seq 300); do grep -q 'ws://' "$TMP/oneshot.server.err" 2>/dev/null && break; sleep 0.1; done
    local url
    url=$(grep -o 'ws://[^ ]*' "$TMP/oneshot.server.err" | head -1)
    echo '{"type":"ping"}' | $CG --callgrind-out-file="$TMP/oneshot.client.cg" "$BIN" "$url" >/dev/null 2>&1 || true
    exec 3>&-
    wait $SERVER || true
    SERVER=
}

oneshot
pair ws plain
pair wss tls

# Names callgrind could not resolve (0x...) and names several local symbols
# share (merged closure thunks such as objectdestroyTm) are left out: lld
# would give the priority to every section holding such a name, pulling
# whole unrelated .text sections (the regex library's, 480 KiB) forward.
nm --defined-only "$BIN" | awk '{print $3}' | sort | uniq -d >"$TMP/ambiguous"
{
    for f in oneshot.client plain.client tls.client plain.server tls.server; do
        sed -nE 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$TMP/$f.cg"
    done
} | awk '!seen[$0]++' | grep -v '^0x' | grep -vxFf "$TMP/ambiguous" >"$OUT"
echo "symbol-order.sh: $(wc -l <"$OUT") functions in $OUT"
