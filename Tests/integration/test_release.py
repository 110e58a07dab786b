"""Releases users can verify and install in one line (issue 37):
packaging/release.sh's folder (made once on a throwaway key by conftest's
`release`, see release_folder.py), what it refuses, the licence in every
package, lintian, the .rpm installed into a root of its own, get.sh served
by Python's http.server on loopback (installing, refusing what was altered,
and naming the build from source where there is no build), the one place
the version is written, and README "Install" against all of it."""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest

import release_folder
from release_folder import GIT, ROOT

DOWNLOAD_URL = "https://github.com/wspipe/wspipe/releases/latest/download"
SCRIPTS = ["packaging/build.sh", "packaging/get.sh", "packaging/install.sh", "packaging/release.sh"]


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (Tests/run installs it with apt-get when it can)")


def run_release(checkout: Path, *args: str, key: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WSPIPE_SIGNING_KEY"}
    if key is not None:
        env["WSPIPE_SIGNING_KEY"] = str(key)
    return subprocess.run([str(checkout / "packaging/release.sh"), *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env)


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def minisign_verify(release, sums: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["minisign", "-V", "-P", release.pubkey, "-m", str(sums),
                           "-x", str(release.out / "SHA256SUMS.minisig")], capture_output=True, text=True)


def readme_install_section() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Install\n"):]
    return section[:section.index("\n## ", 1)]


# --- the release folder -------------------------------------------------------------------------


def test_the_release_folder_holds_every_file_and_its_sums_verify(release):
    names = sorted(p.name for p in release.out.iterdir())
    assert names == sorted([release.deb.name, release.rpm.name, release.tarball.name, "get.sh",
                            "SHA256SUMS", "SHA256SUMS.minisig"])
    assert release.stdout.split() == [str(release.out / n) for n in
                                      sorted(n for n in names if not n.startswith("SHA256SUMS"))] + \
        [str(release.out / "SHA256SUMS"), str(release.out / "SHA256SUMS.minisig")]
    res = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=release.out, capture_output=True, text=True)
    assert res.returncode == 0, res
    summed = sorted(line.split(": ")[0] for line in res.stdout.splitlines() if line.endswith(": OK"))
    assert summed == sorted(n for n in names if not n.startswith("SHA256SUMS")), res.stdout
    assert (release.out / "get.sh").read_bytes() == (release.checkout / "packaging/get.sh").read_bytes()


def test_minisign_accepts_the_signature_and_rejects_a_flipped_byte(release, tmp_path):
    res = minisign_verify(release, release.out / "SHA256SUMS")
    assert res.returncode == 0, res
    assert f"Trusted comment: wspipe {release.version}: SHA256SUMS" in res.stdout, res
    for offset in (0, 70, (release.out / "SHA256SUMS").stat().st_size - 2):
        altered = tmp_path / f"SHA256SUMS.{offset}"
        shutil.copy(release.out / "SHA256SUMS", altered)
        flip_byte(altered, offset)
        res = minisign_verify(release, altered)
        assert res.returncode != 0, (offset, res)
        assert "Signature verification failed" in res.stderr, res
    # Another key's signature is refused too: the key is what is trusted, not the folder.
    _, other = release_folder.make_key(tmp_path, "other")
    res = subprocess.run(["minisign", "-V", "-P", other, "-m", str(release.out / "SHA256SUMS")],
                         capture_output=True, text=True)
    assert res.returncode != 0, res


def test_the_tarball_holds_the_program_its_docs_and_licence(release, tmp_path):
    top = f"wspipe-{release.version}-{release.machine}-linux"
    with tarfile.open(release.tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
        tar.extractall(tmp_path, filter="tar")
    files = {name[len(top) + 1:] for name, m in members.items() if m.isfile()}
    assert files == {"bin/wspipe", "share/man/man1/wspipe.1", "share/bash-completion/completions/wspipe",
                     "share/zsh/site-functions/_wspipe", "share/fish/vendor_completions.d/wspipe.fish",
                     "README.md", "CHANGELOG.md", "LICENSE", "copyright", "install.sh"}, files
    assert all(m.uid == 0 and m.gid == 0 for m in members.values())
    unpacked = tmp_path / top
    assert (unpacked / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert os.access(unpacked / "install.sh", os.X_OK) and os.access(unpacked / "bin/wspipe", os.X_OK)
    res = subprocess.run([str(unpacked / "bin/wspipe"), "--version"], capture_output=True, text=True)
    assert res.stdout == release.version_line


def deb_file(release, tmp_path, path: str) -> bytes:
    tree = tmp_path / "deb"
    if not tree.exists():
        subprocess.run(["dpkg-deb", "-x", str(release.deb), str(tree)], check=True)
    return (tree / path).read_bytes()


def test_the_deb_and_the_tarball_carry_the_same_machine_readable_copyright(release, tmp_path):
    copyright_text = deb_file(release, tmp_path, "usr/share/doc/wspipe/copyright").decode()
    with tarfile.open(release.tarball) as tar:
        member = tar.extractfile(f"wspipe-{release.version}-{release.machine}-linux/copyright")
        assert member is not None
        assert member.read().decode() == copyright_text
    paragraphs = [dict(re.findall(r"^([A-Za-z-]+): ?(.*)$", p, re.M)) for p in copyright_text.split("\n\n")]
    assert paragraphs[0]["Format"] == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    assert paragraphs[0]["Upstream-Name"] == "wspipe"
    files = next(p for p in paragraphs if "Files" in p)
    assert (files["Files"], files["Copyright"], files["License"]) == ("*", "2026 The wspipe authors", "MIT")
    licence = next(p for p in paragraphs if "License" in p and "Files" not in p)
    assert licence["License"] == "MIT"
    # The licence's text as LICENSE has it, each line indented, a blank line as " .".
    body = copyright_text[copyright_text.index("\nLicense: MIT\n Permission"):].split("\n", 2)[2]
    notice = (ROOT / "LICENSE").read_text()
    notice = notice[notice.index("Permission"):]
    assert [line[1:] if line != " ." else "" for line in body.rstrip("\n").split("\n")] == \
        notice.rstrip("\n").split("\n")


def test_the_deb_carries_its_changelog_in_debians_format(release, tmp_path):
    changelog = gzip.decompress(deb_file(release, tmp_path, "usr/share/doc/wspipe/changelog.gz")).decode()
    first = changelog.splitlines()[0]
    # The copy of the checkout the release was made from has the heading dated.
    assert first == f"wspipe ({release.version}) unstable; urgency=medium", changelog[:300]
    assert re.search(r"^ -- The wspipe authors <[^>]+>  \w{3}, 01 Dec 2026 00:00:00 \+0000$", changelog, re.M), changelog
    changes = [line for line in changelog.splitlines() if line.startswith("  ")]
    assert changes and all(len(line) <= 80 for line in changes), [line for line in changes if len(line) > 80]


def test_lintian_finds_no_error_in_the_deb(release):
    need("lintian")
    res = subprocess.run(["lintian", "--fail-on", "error", "--no-tag-display-limit", str(release.deb)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res
    assert not [line for line in res.stdout.splitlines() if line.startswith("E:")], res.stdout
    # What lintian would say of a static binary is overridden, with the reason in the package.
    assert "no-copyright-file" not in res.stdout and "no-changelog" not in res.stdout


def test_the_rpm_installs_into_a_root_runs_and_is_removed(release, tmp_path):
    need("rpm")
    root = tmp_path / "root"
    rpm = ["rpm", f"--root={root}", "--dbpath=/var/lib/rpm"]
    subprocess.run([*rpm, "--initdb"], check=True, capture_output=True)
    info = subprocess.run(["rpm", "-qp", "--queryformat", "%{NAME} %{VERSION} %{LICENSE} %{ARCH}", str(release.rpm)],
                          capture_output=True, text=True)
    assert info.stdout == f"wspipe {release.version} MIT {release.machine}", info
    res = subprocess.run([*rpm, "-i", str(release.rpm)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res
    binary = root / "usr/bin/wspipe"
    res = subprocess.run([str(binary), "--version"], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert res.stdout == release.version_line, res
    for path in ("usr/share/man/man1/wspipe.1.gz", "usr/share/bash-completion/completions/wspipe",
                 "usr/share/zsh/site-functions/_wspipe", "usr/share/fish/vendor_completions.d/wspipe.fish",
                 "usr/share/licenses/wspipe/LICENSE", "usr/share/doc/wspipe/CHANGELOG.md"):
        assert (root / path).is_file(), path
    assert (root / "usr/share/licenses/wspipe/LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert subprocess.run([*rpm, "-q", "wspipe"], capture_output=True, text=True).stdout.strip() == \
        f"wspipe-{release.version}-1.{release.machine}"
    res = subprocess.run([*rpm, "-e", "wspipe"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res
    assert not binary.exists() and not (root / "usr/share/licenses/wspipe").exists()


# --- what release.sh refuses --------------------------------------------------------------------


@pytest.fixture
def clone(release, tmp_path):
    """A clone of the tagged checkout, to change without touching the release's."""
    path = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", str(release.checkout), str(path)], check=True, capture_output=True)
    return path


def test_release_refuses_a_version_the_source_does_not_declare(release, clone, tmp_path):
    for version in ("9.9.9", "0.1", "v" + release.version, release.version + "-rc1"):
        res = run_release(clone, version, "--binary", os.devnull, key=release.key)
        assert res.returncode == 1, (version, res)
        assert not (tmp_path / "out").exists()
    res = run_release(clone, "9.9.9", key=release.key)
    assert f"the source declares {release.version}, not 9.9.9" in res.stderr, res
    res = run_release(clone, "0.1", key=release.key)
    assert "VERSION must be MAJOR.MINOR.PATCH" in res.stderr, res
    res = run_release(clone, key=release.key)
    assert res.returncode == 2 and "which VERSION?" in res.stderr, res


def test_release_refuses_a_checkout_with_changes_or_without_its_tag(release, clone, tmp_path):
    (clone / "notes.txt").write_text("not committed\n")
    res = run_release(clone, release.version, "--out", str(tmp_path / "out"), key=release.key)
    assert res.returncode == 1 and "the checkout has changes" in res.stderr and "notes.txt" in res.stderr, res
    release_folder.commit_all(clone, "a commit after the tag")
    res = run_release(clone, release.version, "--out", str(tmp_path / "out"), key=release.key)
    assert res.returncode == 1 and f"is not tagged v{release.version}" in res.stderr, res
    assert not (tmp_path / "out").exists()


def test_release_refuses_an_undated_changelog_heading(release, clone, tmp_path):
    changelog = clone / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(f"## [{release.version}] - 2026-12-01",
                                                       f"## [{release.version}] - Unreleased"))
    release_folder.commit_all(clone, "undated")
    subprocess.run([*GIT, "-C", str(clone), "tag", "-f", f"v{release.version}"], check=True, capture_output=True)
    res = run_release(clone, release.version, "--out", str(tmp_path / "out"), key=release.key)
    assert res.returncode == 1 and "has no release date" in res.stderr, res


def test_release_refuses_a_key_users_do_not_hold_and_a_used_folder(release, clone, tmp_path):
    out = str(tmp_path / "out")
    res = run_release(clone, release.version, "--out", out)
    assert res.returncode == 1 and "WSPIPE_SIGNING_KEY is not set" in res.stderr, res
    other, other_pub = release_folder.make_key(tmp_path, "other")
    res = run_release(clone, release.version, "--out", out, key=other)
    assert res.returncode == 1 and f"public key {other_pub} is not packaging/minisign.pub's" in res.stderr, res
    # packaging/minisign.pub and get.sh must hold the same key.
    (clone / "packaging/minisign.pub").write_text(f"untrusted comment: x\n{other_pub}\n")
    release_folder.commit_all(clone, "a new key in minisign.pub only")
    subprocess.run([*GIT, "-C", str(clone), "tag", "-f", f"v{release.version}"], check=True, capture_output=True)
    res = run_release(clone, release.version, "--out", out, key=other)
    assert res.returncode == 1 and "get.sh does not hold" in res.stderr, res
    assert not (tmp_path / "out").exists()
    used = tmp_path / "used"
    used.mkdir()
    (used / "old.deb").write_text("")
    res = run_release(release.checkout, release.version, "--out", str(used), key=release.key)
    assert res.returncode == 1 and "is not empty" in res.stderr, res
    assert sorted(p.name for p in used.iterdir()) == ["old.deb"]


def test_release_refuses_a_binary_of_another_version(release, clone, tmp_path):
    fake = tmp_path / "wspipe"
    fake.write_text("#!/bin/sh\necho 'wspipe 9.9.9 (commit 0123456789ab)'\n")
    fake.chmod(0o755)
    res = run_release(clone, release.version, "--binary", str(fake), "--out", str(tmp_path / "out"), key=release.key)
    assert res.returncode == 1 and "says 'wspipe 9.9.9 (commit 0123456789ab)', not wspipe" in res.stderr, res


# --- get.sh --------------------------------------------------------------------------------------


class Served:
    """A folder served by Python's http.server on loopback, noting each path asked for."""

    def __init__(self, folder: Path):
        asked = self.asked = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                asked.append(self.path)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      functools.partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(release, tmp_path):
    """serve(alter=None) -> Served: a copy of the release folder (alter(folder) changes it first)."""
    servers = []

    def _serve(alter=None) -> Served:
        folder = tmp_path / f"served{len(servers)}"
        shutil.copytree(release.out, folder)
        if alter:
            alter(folder)
        servers.append(Served(folder))
        return servers[-1]

    yield _serve
    for s in servers:
        s.close()


def get_sh(served_url: str, release, tmp_path, path: str | None = None, pubkey: str | None = None,
           **env) -> subprocess.CompletedProcess:
    """`curl -fsSL URL/get.sh | dash`, as README's installer line, with its
    environment for the served folder (PATH first with `path` when given)."""
    need("dash", "curl")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environment = {"PATH": os.environ["PATH"], "HOME": str(home), "WSPIPE_DOWNLOAD_URL": served_url,
                   "WSPIPE_PUBKEY": pubkey or release.pubkey, "SHELL": "/bin/bash", **env}
    if path:
        environment["PATH"] = path
    return subprocess.run(["/bin/sh", "-c", 'curl -fsSL "$WSPIPE_DOWNLOAD_URL/get.sh" | dash'],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=environment)


def fake_bin(tmp_path: Path, **scripts: str) -> str:
    """A folder of fake programs (name -> sh script body), for PATH's front."""
    folder = tmp_path / "fake-bin"
    folder.mkdir(exist_ok=True)
    for name, body in scripts.items():
        (folder / name).write_text("#!/bin/sh\n" + body)
        (folder / name).chmod(0o755)
    return str(folder)


def test_get_sh_installs_under_prefix_after_checking_the_signature(release, served, tmp_path):
    server = served()
    prefix = tmp_path / "prefix"
    res = get_sh(server.url, release, tmp_path, PREFIX=str(prefix))
    assert res.returncode == 0, res
    assert "signature and SHA-256 checked" in res.stderr, res
    assert f"installed {release.version_line.strip()} in {prefix}" in res.stdout, res
    assert sorted(server.asked) == sorted(["/get.sh", "/SHA256SUMS", "/SHA256SUMS.minisig", f"/{release.tarball.name}"])
    res2 = subprocess.run([str(prefix / "bin/wspipe"), "--version"], capture_output=True, text=True)
    assert res2.stdout == release.version_line
    for path in ("share/man/man1/wspipe.1", "share/bash-completion/completions/wspipe",
                 "share/zsh/site-functions/_wspipe", "share/fish/vendor_completions.d/wspipe.fish"):
        assert (prefix / path).stat().st_size > 0, path
    # Its bin folder is not on PATH: get.sh says how to add it.
    assert f'export PATH="{prefix}/bin:$PATH"' in res.stderr, res


def test_get_sh_installs_into_dot_local_for_a_user_and_says_nothing_of_path_when_it_is_there(release, served, tmp_path):
    server = served()
    fake = fake_bin(tmp_path, id='[ "$1" = -u ] && echo 1000 || exec /usr/bin/id "$@"\n')
    home = tmp_path / "home"
    path = f"{fake}:{home}/.local/bin:{os.environ['PATH']}"
    res = get_sh(server.url, release, tmp_path, path=path, SHELL="/usr/bin/zsh")
    assert res.returncode == 0, res
    assert (home / ".local/bin/wspipe").is_file()
    assert (home / ".local/share/man/man1/wspipe.1").is_file()
    assert "export PATH" not in res.stderr and "not on PATH" not in res.stdout, res
    assert f"{home}/.local/share/zsh/site-functions is on fpath" in res.stderr, res


def test_get_sh_refuses_a_tampered_tarball(release, served, tmp_path):
    prefix = tmp_path / "prefix"
    server = served(lambda folder: flip_byte(folder / release.tarball.name, 5000))
    res = get_sh(server.url, release, tmp_path, PREFIX=str(prefix))
    assert res.returncode == 1, res
    assert f"{release.tarball.name}'s SHA-256 is" in res.stderr and "nothing installed" in res.stderr, res
    assert not prefix.exists()

    # The sums rewritten to match: the signature no longer does.
    def rewrite(folder: Path):
        flip_byte(folder / release.tarball.name, 5000)
        sums = subprocess.run(["sha256sum", release.tarball.name], cwd=folder, capture_output=True, text=True).stdout
        lines = [sums if release.tarball.name in line else line + "\n"
                 for line in (folder / "SHA256SUMS").read_text().splitlines()]
        (folder / "SHA256SUMS").write_text("".join(lines))
    server = served(rewrite)
    res = get_sh(server.url, release, tmp_path, PREFIX=str(prefix))
    assert res.returncode == 1, res
    assert "the signature of" in res.stderr and "does not match the key" in res.stderr, res
    assert f"/{release.tarball.name}" not in server.asked
    assert not prefix.exists()


def test_get_sh_refuses_a_release_signed_with_another_key(release, served, tmp_path):
    server = served()
    _, other = release_folder.make_key(tmp_path, "other")
    res = get_sh(server.url, release, tmp_path, pubkey=other, PREFIX=str(tmp_path / "prefix"))
    assert res.returncode == 1 and f"does not match the key {other}" in res.stderr, res
    assert not (tmp_path / "prefix").exists()


def test_get_sh_without_minisign_checks_the_sums_and_says_so(release, served, tmp_path):
    """PATH holds only what get.sh and install.sh run (wget rather than curl
    when there is one), no minisign: the SHA-256 is still checked."""
    need("dash", "curl")
    tools = ["sh", "dash", "uname", "id", "mktemp", "rm", "grep", "cut", "gzip", "tar", "mkdir", "sha256sum",
             "cat", "cp", "chmod", "mv", "dirname", "wget" if shutil.which("wget") else "curl"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in tools:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed")
        (bin_dir / tool).symlink_to(found)
    script = tmp_path / "get.sh"
    shutil.copy(release.get_sh, script)
    prefix = tmp_path / "prefix"
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "PREFIX": str(prefix)}
    server = served()
    res = subprocess.run(["dash", str(script)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                         env={**env, "WSPIPE_DOWNLOAD_URL": server.url})
    assert res.returncode == 0, res
    assert "minisign is not installed: checking the SHA-256 sums only" in res.stderr, res
    assert "/SHA256SUMS.minisig" not in server.asked
    assert (prefix / "bin/wspipe").is_file()
    server = served(lambda folder: flip_byte(folder / release.tarball.name, 5000))
    res = subprocess.run(["dash", str(script)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                         env={**env, "WSPIPE_DOWNLOAD_URL": server.url, "PREFIX": str(tmp_path / "other")})
    assert res.returncode == 1 and "nothing installed" in res.stderr, res


@pytest.mark.parametrize("system, machine, named", [("Darwin", "arm64", "macOS (arm64)"),
                                                    ("Darwin", "x86_64", "macOS (x86_64)"),
                                                    ("Linux", "aarch64", "Linux on aarch64"),
                                                    ("FreeBSD", "amd64", "FreeBSD (amd64)")])
def test_get_sh_names_the_build_from_source_where_there_is_no_build(release, served, tmp_path, system, machine, named):
    server = served()
    fake = fake_bin(tmp_path, uname=f'case $1 in -s) echo {system} ;; -m) echo {machine} ;; *) exit 1 ;; esac\n')
    res = get_sh(server.url, release, tmp_path, path=f"{fake}:{os.environ['PATH']}", PREFIX=str(tmp_path / "p"))
    assert res.returncode == 3, res
    assert f"there is no prebuilt wspipe for {named} yet; build it from source" in res.stderr, res
    assert "git clone https://github.com/wspipe/wspipe && cd wspipe" in res.stderr, res
    assert "swift build -c release --product wspipe" in res.stderr, res
    assert server.asked == ["/get.sh"], "nothing downloaded but the script"
    assert not (tmp_path / "p").exists()


def test_the_shell_scripts_are_shellcheck_clean():
    need("shellcheck")
    res = subprocess.run(["shellcheck", "--shell=sh", *SCRIPTS], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    res = subprocess.run(["shellcheck", "--shell=dash", "packaging/get.sh"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


# --- one version, one key, one README ---------------------------------------------------------------


def test_the_version_is_written_in_one_place(wspipe_bin):
    """Sources/WSCLI/Flags/Version.swift declares it; release.sh reads it
    there, --version (and so build.sh) prints it, and CHANGELOG.md's newest
    heading names it."""
    declared = re.findall(r'^public let wspipeVersion: String = "([^"]*)"$',
                          (ROOT / "Sources/WSCLI/Flags/Version.swift").read_text(), re.M)
    assert len(declared) == 1
    version_line = subprocess.run([wspipe_bin, "--version"], capture_output=True, text=True).stdout
    assert version_line.startswith(f"wspipe {declared[0]} (")
    headings = re.findall(r"^## \[([^]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings and headings[0] == declared[0], headings
    others = subprocess.run(["git", "-C", str(ROOT), "grep", "-l", "-F", f'"{declared[0]}"', "--", "Sources",
                             "Package.swift"], capture_output=True, text=True).stdout.split()
    assert others in ([], ["Sources/WSCLI/Flags/Version.swift"]), others


def test_the_public_key_is_the_same_in_minisign_pub_get_sh_and_readme():
    key = (ROOT / "packaging/minisign.pub").read_text().splitlines()[1]
    assert re.fullmatch(r"RW[A-Za-z0-9+/]{54}", key), key
    assert re.findall(r"^default_pubkey=(.*)$", (ROOT / "packaging/get.sh").read_text(), re.M) == [key]
    assert f"minisign -Vm SHA256SUMS -P {key}" in readme_install_section()


def test_readme_install_matches_the_release_folder(release):
    section = readme_install_section()
    get_default = re.findall(r"^default_url=(.*)$", (ROOT / "packaging/get.sh").read_text(), re.M)
    assert get_default == [DOWNLOAD_URL]
    assert f"curl -fsSL {DOWNLOAD_URL}/get.sh | sh" in section
    assert "sha256sum -c --ignore-missing SHA256SUMS" in section
    assert "swift build -c release --product wspipe" in section
    assert "macOS" in section and "arm64" in section
    assert "packaging/release.sh" in section
    if release.machine != "x86_64":
        pytest.skip("the README's file names are those of x86-64")
    for path in release.out.iterdir():
        assert f"`{path.name}`" in section, path.name
