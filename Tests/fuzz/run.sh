#!/usr/bin/env bash
# Fuzz the parsers that read untrusted bytes (frames, permessage-deflate,
# handshakes, extension negotiation, JSON, --replay files) with libFuzzer
# and AddressSanitizer. Not run by CI.
#
#   Tests/fuzz/run.sh [SECONDS] [libFuzzer options...]     (default 60 s)
#   Tests/fuzz/run.sh codecs [SECONDS] [...]   the MessagePack and CBOR
#       converters of --codec instead (Tests/fuzz/codecs/,
#       .build/fuzz/wscodecsfuzz on .build/fuzz/corpus-codecs, seeded from
#       Tests/fuzz/codecs-seeds)
#
# Builds each library target (WSJSON, WSCore, WSCodecs, WSSocketIO,
# WSTerminal, WSTransport, WSBridge) as a module of its own, instrumented
# and testable, then the fuzz target's Swift files against them
# (.build/fuzz/wsfuzz from Tests/fuzz/*.swift); then runs it on
# .build/fuzz/corpus (kept between runs) seeded from Tests/fuzz/seeds. A
# crash leaves its input in .build/fuzz/crash-*; replay it with
# `.build/fuzz/wsfuzz FILE`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

target=wsfuzz sources=(Tests/fuzz/*.swift) seeds=seeds corpus=corpus
if [[ "${1:-}" == codecs ]]; then
    shift
    target=wscodecsfuzz sources=(Tests/fuzz/codecs/*.swift) seeds=codecs-seeds corpus=corpus-codecs
fi
seconds=${1:-60}
(($# > 0)) && shift
out=.build/fuzz
modules=$out/modules
mkdir -p "$out/$corpus" "$modules"

flags=(-O -sanitize=fuzzer,address -parse-as-library -enable-testing
       -I "$modules" -I Sources/COpenSSL -I Sources/CZlib)
quiet() { "$@" 2> >(grep -v "Cannot export local symbol" >&2); }

# module NAME: Sources/NAME (with its subfolders) as NAME.swiftmodule and NAME.o.
module() {
    local name=$1 sources
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    echo "==> building module $name"
    quiet swiftc "${flags[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$modules/$name.swiftmodule" \
        -emit-object -o "$modules/$name.o" "${sources[@]}"
}

for name in WSJSON WSCore WSCodecs WSSocketIO WSTerminal WSTransport WSBridge; do module "$name"; done
echo "==> building $out/$target"
quiet swiftc "${flags[@]}" -module-name WSFuzz "${sources[@]}" "$modules"/*.o -lssl -lcrypto -lz -o "$out/$target"

echo "==> fuzzing for ${seconds}s"
cd "$out"
# The Swift runtime's backtracer would take seconds per crash report.
export SWIFT_BACKTRACE=enable=no
exec ./"$target" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@" "$corpus" ../../Tests/fuzz/"$seeds"
