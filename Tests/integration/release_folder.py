"""A release folder made as a maintainer makes one (README, "Make a
release"), for the packaging and release tests: the checkout as it is
(committed or not) copied into a repository of its own, its CHANGELOG
heading dated, a throwaway minisign key made with `minisign -G -W` put where
the project's public key goes (packaging/minisign.pub and get.sh), the
commit tagged vVERSION, then `packaging/release.sh VERSION --binary` on the
binary under test (so nothing is built again)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"git": "git", "dpkg-deb": "dpkg", "rpmbuild": "rpm", "minisign": "minisign", "tar": "tar",
         "gzip": "gzip", "sha256sum": "coreutils"}
GIT = ["git", "-c", "user.name=wspipe tests", "-c", "user.email=tests@wspipe.invalid", "-c", "init.defaultBranch=main"]


@dataclass
class Release:
    out: Path               # the release folder
    checkout: Path          # the tagged copy of the checkout it was made from
    key: Path               # the throwaway secret key (no password)
    pubkey: str             # its public key, as get.sh and README hold one
    version: str
    version_line: str       # what the packaged binary's --version prints
    machine: str
    arch: str
    deb: Path
    rpm: Path
    tarball: Path
    get_sh: Path
    stdout: str             # release.sh's own


def missing_tools() -> list[str]:
    return [f"{tool} (Debian package {package})" for tool, package in TOOLS.items() if shutil.which(tool) is None]


def copy_checkout(dest: Path) -> None:
    """The files git tracks or would track (untracked ones that are not
    ignored), as they are in the working tree, modes kept."""
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
    for name in sorted(set(listing.decode().split("\0")) - {""}):
        src = ROOT / name
        if not src.exists() and not src.is_symlink():
            continue   # deleted in the working tree, not yet in git
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / name, follow_symlinks=False)


def make_key(directory: Path, name: str = "key") -> tuple[Path, str]:
    """A minisign key pair without a password: (secret key file, public key)."""
    secret, public = directory / f"{name}.key", directory / f"{name}.pub"
    subprocess.run(["minisign", "-G", "-W", "-f", "-s", str(secret), "-p", str(public)],
                   check=True, capture_output=True, stdin=subprocess.DEVNULL)
    return secret, public.read_text().splitlines()[1]


def use_key(checkout: Path, pubkey: str) -> None:
    """What changing the project's key takes: packaging/minisign.pub and get.sh's default_pubkey."""
    (checkout / "packaging/minisign.pub").write_text(f"untrusted comment: minisign public key (tests)\n{pubkey}\n")
    get_sh = checkout / "packaging/get.sh"
    text, count = re.subn(r"^default_pubkey=.*$", f"default_pubkey={pubkey}", get_sh.read_text(), flags=re.M)
    assert count == 1, "get.sh has one default_pubkey line"
    get_sh.write_text(text)


def commit_all(checkout: Path, message: str) -> None:
    subprocess.run([*GIT, "-C", str(checkout), "add", "-A"], check=True, capture_output=True)
    subprocess.run([*GIT, "-C", str(checkout), "commit", "-q", "-m", message], check=True, capture_output=True)


def make_release(binary: str, base: Path) -> Release:
    version_line = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    version = version_line.split()[1]
    checkout = base / "checkout"
    checkout.mkdir()
    copy_checkout(checkout)
    key, pubkey = make_key(base)
    use_key(checkout, pubkey)
    changelog = checkout / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(f"## [{version}] - Unreleased\n", f"## [{version}] - 2026-12-01\n"))
    subprocess.run([*GIT, "init", "-q", str(checkout)], check=True, capture_output=True)
    commit_all(checkout, f"wspipe {version}")
    subprocess.run([*GIT, "-C", str(checkout), "tag", "-a", f"v{version}", "-m", f"wspipe {version}"],
                   check=True, capture_output=True)
    out = base / "release"
    res = subprocess.run([str(checkout / "packaging/release.sh"), version, "--binary", binary, "--out", str(out)],
                         capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                         env={**os.environ, "WSPIPE_SIGNING_KEY": str(key)})
    assert res.returncode == 0, res
    machine = os.uname().machine
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine)
    return Release(out=out, checkout=checkout, key=key, pubkey=pubkey, version=version, version_line=version_line,
                   machine=machine, arch=arch, deb=out / f"wspipe_{version}_{arch}.deb",
                   rpm=out / f"wspipe-{version}-1.{machine}.rpm", tarball=out / f"wspipe-{version}-{machine}-linux.tar.gz",
                   get_sh=out / "get.sh", stdout=res.stdout)
