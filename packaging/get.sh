#!/bin/sh
# Installs wspipe from its latest release (README, "Install"):
#   curl -fsSL https://github.com/wspipe/wspipe/releases/latest/download/get.sh | sh
#
# 1. Picks the build for this system from `uname -s` and `uname -m`: Linux
#    x86-64 today. Elsewhere (macOS, arm64) it prints how to build from source
#    and exits 3.
# 2. Downloads SHA256SUMS, SHA256SUMS.minisig and wspipe-VERSION-x86_64-linux.tar.gz
#    from WSPIPE_DOWNLOAD_URL, with curl or wget.
# 3. When minisign is installed, checks SHA256SUMS's signature with the public
#    key below (or WSPIPE_PUBKEY); always checks the tarball's SHA-256 against
#    SHA256SUMS. A mismatch installs nothing and exits 1.
# 4. Installs with the tarball's install.sh under PREFIX: the program in
#    PREFIX/bin, the man page in PREFIX/share/man, the bash, zsh and fish
#    completions under PREFIX/share. PREFIX defaults to /usr/local as root and
#    to ~/.local otherwise; it says when PREFIX/bin is not on PATH.
#
# Environment:
#   WSPIPE_DOWNLOAD_URL  the release folder (default: the latest release,
#                        https://github.com/wspipe/wspipe/releases/latest/download;
#                        one version's: .../releases/download/vVERSION)
#   WSPIPE_PUBKEY        the minisign public key to check the signature with
#   PREFIX               where to install
# Exit status: 0 installed, 1 failed (download, check, install), 3 no build for this system.
# POSIX sh: runs under dash, busybox sh and bash.
set -eu

default_pubkey=RWTFPpdEmwsg5u+VAZNRb9k203h6lsaboXmInBGDMPv5qDoGirv8vJg6
default_url=https://github.com/wspipe/wspipe/releases/latest/download
source_url=https://github.com/wspipe/wspipe

say() { printf 'get.sh: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

# Where no build exists: the build from source (README, "Build from source").
no_build() {
    say "there is no prebuilt wspipe for $1 yet; build it from source"
    say "(a Swift 6 toolchain and the OpenSSL and zlib headers; README, \"Build from source\"):"
    cat >&2 <<EOF
    git clone $source_url && cd wspipe
    swift build -c release --product wspipe
    mkdir -p ~/.local/bin && cp .build/release/wspipe ~/.local/bin/
EOF
    exit 3
}

# Sets machine to the build's name for this system, or explains and exits 3.
choose_build() {
    system=$(uname -s)
    machine=$(uname -m)
    case $system in
        Linux) ;;
        Darwin) no_build "macOS ($machine)" ;;
        *) no_build "$system ($machine)" ;;
    esac
    case $machine in
        x86_64 | amd64) machine=x86_64 ;;
        *) no_build "Linux on $machine" ;;
    esac
}

main() {
    choose_build
    url=${WSPIPE_DOWNLOAD_URL:-$default_url}
    url=${url%/}
    pubkey=${WSPIPE_PUBKEY:-$default_pubkey}
    if [ -n "${PREFIX:-}" ]; then
        prefix=$PREFIX
    elif [ "$(id -u)" = 0 ]; then
        prefix=/usr/local
    else
        [ -n "${HOME:-}" ] || fail "HOME is not set: set PREFIX to the folder to install under"
        prefix=$HOME/.local
    fi

    if command -v curl >/dev/null 2>&1; then
        fetch() { curl -fsSL -o "$2" "$1"; }
    elif command -v wget >/dev/null 2>&1; then
        fetch() { wget -q -O "$2" "$1"; }
    else
        fail "neither curl nor wget is installed: install one, or download the release by hand (README, \"Install\")"
    fi
    download() {
        fetch "$url/$1" "$work/$1" || fail "could not download $url/$1"
    }
    sha256() {
        if command -v sha256sum >/dev/null 2>&1; then
            sha256sum "$1" | cut -d ' ' -f 1
        elif command -v shasum >/dev/null 2>&1; then
            shasum -a 256 "$1" | cut -d ' ' -f 1
        else
            fail "neither sha256sum nor shasum is installed: nothing can be checked, so nothing is installed"
        fi
    }

    work=$(mktemp -d 2>/dev/null || mktemp -d -t wspipe)
    trap 'rm -rf "$work"' EXIT
    trap 'exit 1' HUP INT TERM

    download SHA256SUMS
    if command -v minisign >/dev/null 2>&1; then
        download SHA256SUMS.minisig
        minisign -V -q -P "$pubkey" -m "$work/SHA256SUMS" -x "$work/SHA256SUMS.minisig" >/dev/null 2>&1 ||
            fail "the signature of $url/SHA256SUMS does not match the key $pubkey: nothing installed"
        checked="signature and SHA-256 checked"
    else
        say "minisign is not installed: checking the SHA-256 sums only, not who signed them"
        checked="SHA-256 checked (install minisign to check the signature too)"
    fi

    # The tarball named in SHA256SUMS for this system (the name holds the version).
    pattern="^[0-9a-f]\{64\} [ *]wspipe-[0-9][0-9A-Za-z.+~]*-$machine-linux\.tar\.gz\$"
    lines=$(grep -c "$pattern" "$work/SHA256SUMS" || true)
    [ "$lines" = 1 ] || fail "$url/SHA256SUMS names $lines tarball(s) for Linux $machine, not one"
    line=$(grep "$pattern" "$work/SHA256SUMS")
    expected=${line%% *}
    tarball=${line#* }
    tarball=${tarball#[ *]}
    download "$tarball"
    actual=$(sha256 "$work/$tarball")
    [ "$actual" = "$expected" ] ||
        fail "$tarball's SHA-256 is $actual, but SHA256SUMS says $expected: the download is damaged or was altered; nothing installed"

    folder=${tarball%.tar.gz}
    mkdir "$work/unpacked"
    gzip -dc "$work/$tarball" | (cd "$work/unpacked" && tar -xf -) || fail "could not unpack $tarball"
    [ -f "$work/unpacked/$folder/install.sh" ] || fail "$tarball holds no $folder/install.sh"
    say "installing ${folder%-"$machine"-linux} ($checked) under $prefix"
    DESTDIR='' PREFIX=$prefix sh "$work/unpacked/$folder/install.sh" || fail "install.sh failed"

    case :$PATH: in
        *:"$prefix/bin":* | *:"$prefix/bin/":*) ;;
        *) say "add $prefix/bin to PATH to run wspipe by name, e.g. in ~/.profile:"
           say "    export PATH=\"$prefix/bin:\$PATH\"" ;;
    esac
    case ${SHELL:-} in
        */zsh)
            case $prefix in
                /usr | /usr/local) ;;
                *) say "zsh finds the completion once $prefix/share/zsh/site-functions is on fpath (in ~/.zshrc, before compinit)" ;;
            esac ;;
    esac
}

# Everything runs from here, the script's last line: a download cut short
# (`curl ... | sh`) runs nothing rather than part of the script.
main "$@"
