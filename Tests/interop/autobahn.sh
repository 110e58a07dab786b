#!/usr/bin/env bash
# Autobahn|Testsuite against wspipe as an echo client (opt-in; Tests/run does
# not run it: it takes minutes and needs Python 2.7 and PyPI).
#
# Usage:  Tests/interop/autobahn.sh [WSPIPE] [-- extra wspipe flags...]
#   WSPIPE   the binary (default .build/release/wspipe; build it first with
#            `swift build -c release --product wspipe`)
# Env:    PYTHON2=...     a Python 2.7 (default: python2.7 if it runs, else pyenv's 2.7.x)
#         AB_VENV=DIR     the venv (default /tmp/wspipe-autobahn-venv)
#         AB_OUT=DIR      spec, reports, per-case stderr (default /tmp/wspipe-autobahn)
#         AB_CASES='"1.*","2.*"'   the case patterns (default cases 1-7 and 10)
#         AB_PORT=9001
#
# What it installs, and where: a Python 2.7 venv at $AB_VENV (virtualenv<20.22
# into that Python 2.7's user site if it lacks it), and in the venv, from
# PyPI, autobahntestsuite 0.8.2 with the old dependencies it runs with (pinned
# below). Nothing goes into the repository.
#
# Each case runs `wspipe --no-reconnect URL <>fifo >fifo` (the exact echo
# client of the man page): what arrives goes back out, text as text and
# binary through {"$binary":...}. At the end it prints the behaviour counts
# of the report, the exit status of each case when not 0, and each case whose
# stderr has a line (warnings at default verbosity), with those lines.
# Exit status: 1 if any case FAILED or printed an "unconfirmed" warning.
set -euo pipefail
exec </dev/null

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
WSPIPE=.build/release/wspipe
if [[ $# -gt 0 && $1 != -- ]]; then WSPIPE=$1; shift; fi
[[ ${1:-} == -- ]] && shift
FLAGS=(--no-reconnect "$@")
WSPIPE=$(cd "$(dirname "$WSPIPE")" && pwd)/$(basename "$WSPIPE")
[[ -x $WSPIPE ]] || { echo "autobahn.sh: no binary at $WSPIPE (build it first)" >&2; exit 2; }

if [[ -z ${PYTHON2:-} ]]; then   # a pyenv shim may exist without the version active
    for candidate in python2.7 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/2.7*/bin/python; do
        if "$candidate" -c '' 2>/dev/null; then PYTHON2=$candidate; break; fi
    done
fi
[[ -n ${PYTHON2:-} ]] || { echo "autobahn.sh: no Python 2.7 (set PYTHON2)" >&2; exit 2; }
AB_VENV=${AB_VENV:-/tmp/wspipe-autobahn-venv}
AB_OUT=${AB_OUT:-/tmp/wspipe-autobahn}
AB_CASES=${AB_CASES:-'"1.*","2.*","3.*","4.*","5.*","6.*","7.*","10.*"'}
AB_PORT=${AB_PORT:-9001}
BASE=ws://127.0.0.1:$AB_PORT

# autobahntestsuite 0.8.2 is Python 2 only and needs the autobahn, Twisted
# and crypto releases of its time.
PACKAGES=(autobahntestsuite==0.8.2 autobahn==0.10.9 twisted==20.3.0
          'pyOpenSSL<21' 'cryptography<3.4' 'service_identity<21' 'zope.interface<5.5')
if [[ ! -x $AB_VENV/bin/wstest ]]; then
    echo "autobahn.sh: installing ${PACKAGES[*]} into $AB_VENV" >&2
    "$PYTHON2" -m virtualenv --version >/dev/null 2>&1 ||
        "$PYTHON2" -m pip install -q --user 'virtualenv<20.22'
    "$PYTHON2" -m virtualenv -q "$AB_VENV"
    "$AB_VENV/bin/pip" install -q "${PACKAGES[@]}"
fi

rm -rf "$AB_OUT"; mkdir -p "$AB_OUT/stderr"
cat > "$AB_OUT/spec.json" <<EOF
{"url": "$BASE", "outdir": "$AB_OUT/reports",
 "cases": [$AB_CASES], "exclude-cases": [], "exclude-agent-cases": {}}
EOF
(cd "$AB_OUT" && exec "$AB_VENV/bin/wstest" -m fuzzingserver -s spec.json) \
    >"$AB_OUT/server.log" 2>&1 &
SERVER=$!
FIFO=$AB_OUT/fifo; mkfifo "$FIFO"
trap 'kill $SERVER 2>/dev/null; rm -f "$FIFO"' EXIT
for _ in $(seq 100); do
    grep -q 'will run' "$AB_OUT/server.log" 2>/dev/null && break; sleep 0.2
done

COUNT=$("$WSPIPE" -U --no-reconnect "$BASE/getCaseCount")
echo "autobahn.sh: $COUNT cases, wspipe ${FLAGS[*]}" >&2
: > "$AB_OUT/status"
for ((n = 1; n <= COUNT; n++)); do
    set +e
    timeout 120 "$WSPIPE" "${FLAGS[@]}" "$BASE/runCase?case=$n&agent=wspipe" \
        <>"$FIFO" >"$FIFO" 2>"$AB_OUT/stderr/$n"
    echo "$n $?" >> "$AB_OUT/status"
    set -e
done
"$WSPIPE" -U --no-reconnect "$BASE/updateReports?agent=wspipe" >/dev/null

"$AB_VENV/bin/python" - "$AB_OUT" <<'EOF'
import json, sys, collections
out = sys.argv[1]
cases = json.load(open(out + "/reports/index.json"))["wspipe"]
order = sorted(cases, key=lambda c: [int(x) for x in c.split(".")])
status = dict(l.split() for l in open(out + "/status"))
by = collections.Counter(cases[c]["behavior"] for c in order)
print("behaviour: " + ", ".join("%s %d" % kv for kv in sorted(by.items())))
for c in order:
    if cases[c]["behavior"] == "FAILED":
        r = json.load(open(out + "/reports/" + cases[c]["reportfile"]))
        print("FAILED %s: %s" % (c, r.get("result")))
bad = 0
codes = collections.Counter(status.values())
print("exit statuses: " + ", ".join("%s x%d" % kv for kv in sorted(codes.items())))
warned = []
for i, c in enumerate(order, 1):
    err = open("%s/stderr/%d" % (out, i)).read().splitlines()
    if err or status[str(i)] != "0":
        print("case %s (#%d) %s exit %s: %s" % (c, i, cases[c]["behavior"],
              status[str(i)], " | ".join(err)))
    if any("unconfirmed" in l for l in err):
        warned.append(c)
print("unconfirmed warnings: %d %s" % (len(warned), " ".join(warned)))
sys.exit(1 if warned or by.get("FAILED") else 0)
EOF
