#!/bin/sh
# Makes the release folder of wspipe VERSION (README, "Make a release"):
#   wspipe-VERSION-MACHINE-linux.tar.gz   program, man page, completions, README, CHANGELOG,
#                                         LICENSE, copyright, install.sh
#   wspipe_VERSION_ARCH.deb               Debian and Ubuntu
#   wspipe-VERSION-1.MACHINE.rpm          Fedora, RHEL, openSUSE
#   get.sh                                the one-line installer
#   SHA256SUMS                            the SHA-256 of each file above
#   SHA256SUMS.minisig                    minisign's signature of SHA256SUMS
#
# Usage: WSPIPE_SIGNING_KEY=FILE packaging/release.sh VERSION [--binary PATH] [--out DIR]
#   VERSION        the version to release: the one the source declares
#                  (Sources/WSCLI/Flags/Version.swift), with a dated heading in
#                  CHANGELOG.md, from a clean checkout whose HEAD is tagged vVERSION
#   --binary PATH  package this build (its --version must say VERSION) instead of
#                  building with `swift build -c release --product wspipe`
#   --out DIR      the release folder, which must not exist or be empty
#                  (default: .build/release-VERSION)
# WSPIPE_SIGNING_KEY names minisign's secret key file, made for unattended use
# with `minisign -G -W` (no password); its public key must be packaging/minisign.pub,
# the key get.sh and README give users. Needs minisign, sha256sum, git and
# what packaging/build.sh needs. Exit status: 0 made, 1 refused or failed, 2 usage.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
me=packaging/release.sh
fail() { echo "$me: $*" >&2; exit 1; }

version='' binary='' out=''
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=${2:?--binary needs a path}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        -h|--help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) [ -z "$version" ] || { echo "$me: one VERSION only (see --help)" >&2; exit 2; }
           version=$1; shift ;;
    esac
done
[ -n "$version" ] || { echo "$me: which VERSION? (see --help)" >&2; exit 2; }
out=${out:-$root/.build/release-$version}
for tool in git minisign sha256sum; do
    command -v "$tool" >/dev/null || fail "$tool is needed (apt-get install $tool)"
done

# The version: a plain X.Y.Z (a Debian or rpm version with no revision of its
# own), the one the source declares, and one CHANGELOG.md has released.
case $version in
    *[!0-9.]* | .* | *. | *..* | *.*.*.*) fail "VERSION must be MAJOR.MINOR.PATCH, not '$version'" ;;
    *.*.*) ;;
    *) fail "VERSION must be MAJOR.MINOR.PATCH, not '$version'" ;;
esac
declared=$(sed -n 's/^public let wspipeVersion: String = "\([^"]*\)"$/\1/p' "$root/Sources/WSCLI/Flags/Version.swift")
[ -n "$declared" ] || fail "cannot read wspipeVersion from Sources/WSCLI/Flags/Version.swift"
[ "$version" = "$declared" ] ||
    fail "the source declares $declared, not $version: change wspipeVersion in Sources/WSCLI/Flags/Version.swift and CHANGELOG.md's heading first"
heading=$(grep -m1 "^## \[$version\]" "$root/CHANGELOG.md" || true)
[ -n "$heading" ] || fail "CHANGELOG.md has no '## [$version] - YYYY-MM-DD' section: say what changed for users first"
case $heading in
    "## [$version] - "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]) ;;
    *) fail "CHANGELOG.md's heading '$heading' has no release date: write '## [$version] - YYYY-MM-DD'" ;;
esac

# The checkout: nothing changed or added that git does not ignore, HEAD tagged vVERSION.
cd "$root"
git rev-parse --git-dir >/dev/null 2>&1 || fail "$root is not a git checkout"
changes=$(git status --porcelain --untracked-files=normal)
[ -z "$changes" ] || fail "the checkout has changes (commit or remove them first):
$changes"
git tag --points-at HEAD | grep -qx "v$version" ||
    fail "HEAD ($(git rev-parse --short=12 HEAD)) is not tagged v$version: git tag -a v$version -m 'wspipe $version'"
head=$(git rev-parse --short=12 HEAD)

# The signing key: the secret half of packaging/minisign.pub, which get.sh holds too.
key=${WSPIPE_SIGNING_KEY:-}
[ -n "$key" ] || fail "WSPIPE_SIGNING_KEY is not set: name minisign's secret key file (made with minisign -G -W)"
[ -r "$key" ] || fail "WSPIPE_SIGNING_KEY=$key is not a readable file"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
minisign -R -s "$key" -p "$work/key.pub" </dev/null >/dev/null 2>"$work/minisign.err" ||
    fail "minisign cannot read $key: $(cat "$work/minisign.err")"
public=$(sed -n 2p "$work/key.pub")
[ "$public" = "$(sed -n 2p "$root/packaging/minisign.pub")" ] ||
    fail "WSPIPE_SIGNING_KEY's public key $public is not packaging/minisign.pub's, which users check releases with"
grep -q "^default_pubkey=$public\$" "$root/packaging/get.sh" ||
    fail "packaging/get.sh does not hold packaging/minisign.pub's key ($public) as its default_pubkey"

if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then fail "$out is not empty: remove it first"; fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -z "$binary" ]; then
    echo "==> swift build -c release --product wspipe" >&2
    swift build -c release --product wspipe >&2
    binary=$root/.build/release/wspipe
fi
[ -x "$binary" ] || fail "$binary is not an executable"
version_line=$("$binary" --version)
case $version_line in
    "wspipe $version ("*) ;;
    *) fail "$binary says '$version_line', not wspipe $version" ;;
esac
case $version_line in
    *"(commit $head)") ;;
    *) echo "$me: note: packaging $version_line; HEAD is $head" >&2 ;;
esac

# Every file dated by the tagged commit, so the same checkout makes the same packages.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
"$root/packaging/build.sh" --binary "$binary" --out "$out" >"$work/files"
cp "$root/packaging/get.sh" "$out/get.sh"
chmod 755 "$out/get.sh"

cd "$out"
files=$(for file in $(cat "$work/files") "$out/get.sh"; do basename "$file"; done | LC_ALL=C sort)
# shellcheck disable=SC2086 # the names are wspipe's own, without blanks
sha256sum $files >SHA256SUMS
minisign -S -s "$key" -m SHA256SUMS -x SHA256SUMS.minisig -t "wspipe $version: SHA256SUMS" </dev/null >/dev/null ||
    fail "minisign could not sign SHA256SUMS"
minisign -V -q -p "$root/packaging/minisign.pub" -m SHA256SUMS -x SHA256SUMS.minisig >/dev/null ||
    fail "the signature just made does not verify with packaging/minisign.pub"
sha256sum --quiet -c SHA256SUMS || fail "SHA256SUMS does not match the files"

echo "wspipe $version released from $head into $out:" >&2
for file in $files SHA256SUMS SHA256SUMS.minisig; do echo "$out/$file"; done
