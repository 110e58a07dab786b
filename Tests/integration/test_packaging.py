"""packaging/build.sh (issue 25): the .deb and the release tarball around
the binary under test, installed the ways the README says (`dpkg -i` into a
root with its own package database, and `PREFIX=... ./install.sh`), then used:
--version, `man -w`, a bash completion. They come from the release folder
that packaging/release.sh makes once for the session (conftest's `release`;
test_release.py tests the rest of it)."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import tarfile

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


@pytest.fixture(scope="module")
def dist(release):
    return {"deb": release.deb, "tarball": release.tarball, "version": release.version,
            "version_line": release.version_line, "machine": release.machine}


def static_elf(path) -> bool:
    """An ELF executable without a program interpreter: the kernel runs it
    as it is, no dynamic loader, no shared library."""
    with open(path, "rb") as f:
        head = f.read(64)
        assert head[:4] == b"\x7fELF" and head[4] == 2, "a 64-bit ELF file"
        phoff, = struct.unpack_from("<Q", head, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", head, 0x36)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            if struct.unpack("<I", f.read(4))[0] == 3:   # PT_INTERP
                return False
    return True


def complete(script, words: list[str]) -> list[str]:
    """The replies of the bash completion in `script` for the last of `words`."""
    words_text = " ".join(f"'{w}'" for w in words)
    program = (f'source "{script}"; COMP_WORDS=({words_text}); COMP_CWORD={len(words) - 1}; '
               f'COMP_LINE="{" ".join(words)}"; _wspipe; printf "%s\\n" "${{COMPREPLY[@]}}"')
    res = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res
    return res.stdout.split()


def man_path(manpath) -> str:
    if shutil.which("man") is None:
        pytest.skip("man is not installed (Tests/run installs man-db with apt-get when it can)")
    res = subprocess.run(["man", "-w", "wspipe"], capture_output=True, text=True, timeout=30,
                         env={**os.environ, "MANPATH": str(manpath)})
    assert res.returncode == 0, res
    return res.stdout.strip()


def test_the_deb_depends_on_nothing_and_puts_files_in_debians_paths(dist):
    fields = subprocess.run(["dpkg-deb", "--field", str(dist["deb"])], capture_output=True, text=True).stdout
    control = dict(re.findall(r"^([A-Za-z-]+): (.*)$", fields, re.M))
    assert (control["Package"], control["Version"]) == ("wspipe", dist["version"]), fields
    for relation in ("Depends", "Pre-Depends", "Recommends"):
        assert relation not in control, fields
    listing = subprocess.run(["dpkg-deb", "--contents", str(dist["deb"])], capture_output=True, text=True).stdout
    files = {line.split()[-1].lstrip(".") for line in listing.splitlines() if not line.startswith("d")}
    assert {"/usr/bin/wspipe", "/usr/share/man/man1/wspipe.1.gz", "/usr/share/bash-completion/completions/wspipe",
            "/usr/share/zsh/vendor-completions/_wspipe", "/usr/share/fish/vendor_completions.d/wspipe.fish"} <= files


def test_the_deb_installs_and_works(dist, tmp_path):
    """`dpkg -i` for real, into a root of its own (its own package database,
    so the machine's is untouched), then `dpkg -r` removes every file."""
    if not shutil.which("dpkg"):
        pytest.skip("dpkg is not installed")
    root = tmp_path / "root"
    (root / "var/lib/dpkg/info").mkdir(parents=True)
    (root / "var/lib/dpkg/updates").mkdir()
    (root / "var/lib/dpkg/status").write_text("")
    dpkg = ["dpkg", f"--root={root}", "--force-script-chrootless", "--force-not-root"]
    res = subprocess.run([*dpkg, "-i", str(dist["deb"])], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res
    status = subprocess.run([*dpkg, "-s", "wspipe"], capture_output=True, text=True).stdout
    assert "Status: install ok installed" in status, status
    binary = root / "usr/bin/wspipe"
    assert static_elf(binary)
    res = subprocess.run([str(binary), "--version"], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert res.stdout == dist["version_line"], res
    assert man_path(root / "usr/share/man") == str(root / "usr/share/man/man1/wspipe.1.gz")
    assert complete(root / "usr/share/bash-completion/completions/wspipe", ["wspipe", "--cookie-j"]) == ["--cookie-jar"]
    assert complete(root / "usr/share/bash-completion/completions/wspipe", ["wspipe", "--generate", "b"]) == ["bash"]
    res = subprocess.run([*dpkg, "-r", "wspipe"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res
    assert not binary.exists() and not (root / "usr/share/man/man1/wspipe.1.gz").exists()


def test_the_tarball_installs_under_prefix(dist, tmp_path):
    with tarfile.open(dist["tarball"]) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path, filter="tar")
    top = f"wspipe-{dist['version']}-{dist['machine']}-linux"
    assert all(name == top or name.startswith(top + "/") for name in names), names
    prefix = tmp_path / "prefix"
    env = {**os.environ, "PREFIX": str(prefix)}
    res = subprocess.run(["./install.sh"], cwd=tmp_path / top, env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res
    assert f"installed {dist['version_line'].strip()} in {prefix}" in res.stdout, res
    binary = prefix / "bin/wspipe"
    assert static_elf(binary)
    assert subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout == dist["version_line"]
    assert man_path(prefix / "share/man") == str(prefix / "share/man/man1/wspipe.1")
    assert complete(prefix / "share/bash-completion/completions/wspipe", ["wspipe", "--max-r"]) == \
        ["--max-redirs", "--max-retries", "--max-reply-p99"]
    for path in ("share/zsh/site-functions/_wspipe", "share/fish/vendor_completions.d/wspipe.fish"):
        assert (prefix / path).stat().st_size > 0, path
    res = subprocess.run(["./install.sh", "--uninstall"], cwd=tmp_path / top, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res
    assert not binary.exists() and not (prefix / "share/man/man1/wspipe.1").exists()


def test_the_readme_names_the_files_the_script_makes(dist):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme[readme.index("\n## Install\n"):]
    section = section[:section.index("\n## ", 1)]
    assert "packaging/build.sh" in section
    if dist["machine"] != "x86_64":
        pytest.skip("the README's file names are those of x86-64")
    assert f"dpkg -i {dist['deb'].name}" in section
    assert f"tar xzf {dist['tarball'].name}" in section
    assert "PREFIX=$HOME/.local ./install.sh" in section
