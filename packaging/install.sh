#!/bin/sh
# Installs wspipe from this release directory (README, "Install"):
#   PREFIX/bin/wspipe                                   the program (one static executable)
#   PREFIX/share/man/man1/wspipe.1                      man wspipe
#   PREFIX/share/bash-completion/completions/wspipe     bash completion
#   PREFIX/share/zsh/site-functions/_wspipe             zsh completion
#   PREFIX/share/fish/vendor_completions.d/wspipe.fish  fish completion
#
#   sudo ./install.sh                   PREFIX=/usr/local
#   PREFIX=$HOME/.local ./install.sh    no root needed
#   ./install.sh --uninstall            removes those files again (same PREFIX)
# DESTDIR, when set, goes before PREFIX (staging for a package), as with make.
set -eu
# Folders made here are everyone's to enter (0755), whatever the caller's
# umask: under umask 077 they were 0700, and other users could neither run
# wspipe nor read its man page. The files get their modes below.
umask 022

here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-/usr/local}
target=${DESTDIR:-}$prefix
files="bin/wspipe share/man/man1/wspipe.1 share/bash-completion/completions/wspipe
share/zsh/site-functions/_wspipe share/fish/vendor_completions.d/wspipe.fish"

if [ "${1:-}" = --uninstall ]; then
    for file in $files; do rm -f "$target/$file"; done
    echo "removed wspipe from $target"
    exit 0
fi
[ $# -eq 0 ] || { echo "install.sh: unknown argument '$1' (PREFIX=DIR ./install.sh, or --uninstall)" >&2; exit 2; }

for file in $files; do
    mkdir -p "$target/$(dirname "$file")"
    # Copied to a new name, then renamed: a wspipe running from there keeps its old file.
    cp "$here/$file" "$target/$file.new"
    case $file in bin/*) chmod 755 "$target/$file.new" ;; *) chmod 644 "$target/$file.new" ;; esac
    mv -f "$target/$file.new" "$target/$file"
done
echo "installed $("$target/bin/wspipe" --version) in $target"
case :$PATH: in *:"$prefix/bin":*) ;; *) echo "note: $prefix/bin is not on PATH" ;; esac
