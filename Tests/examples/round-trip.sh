#!/bin/sh
# A JSON round trip through wspipe's own server, with nothing else installed.
# The server echoes: its stdout feeds its stdin through a FIFO. The client
# sends two lines (a JSON object and a binary frame) and prints the echoes.
set -eu
bin=${WSPIPE:-.build/release/wspipe}
dir=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
mkfifo "$dir/loop"
# Created here: the background job opens it only when it gets to run.
: >"$dir/server.log"

# Port 0: the system picks a free port, which wspipe reports on stderr.
"$bin" --listen 127.0.0.1:0 --once <>"$dir/loop" >"$dir/loop" 2>"$dir/server.log" &
server=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's|^wspipe: listening on ws://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$dir/server.log")
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { cat "$dir/server.log" >&2; exit 1; }

# -n: after stdin ends keep listening; --max-messages 2: stop after both echoes.
printf '%s\n' '{"type":"hello","text":"round trip"}' '{"$binary":"AAECAw=="}' |
    "$bin" -n --max-messages 2 "ws://127.0.0.1:$port/"
wait "$server"
server=
