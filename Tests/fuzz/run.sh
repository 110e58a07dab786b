#!/usr/bin/env bash
# Fuzz the parsers that read untrusted bytes (frames, permessage-deflate,
# handshakes, extension negotiation, JSON) with libFuzzer and
# AddressSanitizer. Not run by CI.
#
#   Tests/fuzz/run.sh [SECONDS] [libFuzzer options...]     (default 60 s)
#   Tests/fuzz/run.sh codecs [SECONDS] [...]   the MessagePack and CBOR
#       converters of --codec instead (WSCodecs with Tests/fuzz/codecs/,
#       .build/fuzz/wscodecsfuzz on .build/fuzz/corpus-codecs, seeded from
#       Tests/fuzz/codecs-seeds)
#
# Builds .build/fuzz/wsfuzz from the WSCore and WSJSON sources plus
# Tests/fuzz/*.swift in one module, then runs it on .build/fuzz/corpus (kept
# between runs) seeded from Tests/fuzz/seeds. A crash leaves its input in
# .build/fuzz/crash-*; replay it with `.build/fuzz/wsfuzz FILE`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

name=wsfuzz sources=(Sources/WSCore/*.swift Sources/WSJSON/*.swift Tests/fuzz/*.swift) seeds=seeds corpus=corpus
if [[ "${1:-}" == codecs ]]; then
    shift
    name=wscodecsfuzz sources=(Sources/WSCodecs/*.swift Sources/WSJSON/*.swift Tests/fuzz/codecs/*.swift) seeds=codecs-seeds corpus=corpus-codecs
fi
seconds=${1:-60}
(($# > 0)) && shift
out=.build/fuzz
mkdir -p "$out/$corpus"

echo "==> building $out/$name"
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name WSFuzz \
    -I Sources/COpenSSL -I Sources/CZlib \
    "${sources[@]}" \
    -o "$out/$name" 2> >(grep -v "Cannot export local symbol" >&2)

echo "==> fuzzing for ${seconds}s"
cd "$out"
# The Swift runtime's backtracer would take seconds per crash report.
export SWIFT_BACKTRACE=enable=no
exec ./"$name" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@" "$corpus" ../../Tests/fuzz/"$seeds"
