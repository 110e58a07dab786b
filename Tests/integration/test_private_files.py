"""Issue 33 item 3: the files that hold what is the user's alone (the cookie
jar, --record, the interactive history) are created one way (PrivateFile):
a random temporary name, O_EXCL|O_NOFOLLOW, mode 0600, an existing file
appended to narrowed to 0600, a rewrite renamed in the same folder. Here
another local user (uid 65534) plants files and links where wspipe writes,
in a shared folder such as /tmp."""

from __future__ import annotations

import os
import stat

import pytest

from helpers import WsProc

NOBODY = 65534


def cookie_server(ws_server):
    def process_response(connection, request, response):
        response.headers["Set-Cookie"] = "sid=SECRET-SESSION; Path=/"
        return None

    async def handler(ws, log):
        async for message in ws:
            await ws.send(message)

    return ws_server(handler, process_response=process_response)


def shared_folder(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o1777)   # like /tmp: everyone may create, the sticky bit protects each one's files
    return folder


def run_planting(wspipe_bin, plant: str, args: list[str]):
    """Runs wspipe after `plant`, a shell command that may name wspipe's
    future process id as $$ (the shell execs wspipe, which keeps it)."""
    proc = WsProc(["sh", "-c", plant + ' && exec "$0" "$@"', wspipe_bin, *args], stdin=b'{"n":1}\n')
    return proc.finish()


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="plays another local user: needs root")


@needs_root
def test_a_jar_in_a_shared_folder_stays_the_users(wspipe_bin, ws_server, tmp_path):
    """The jar was rewritten through JAR.wspipe-PID, opened without O_EXCL:
    a file another user made there first became the jar, theirs, mode 666."""
    srv = cookie_server(ws_server)
    folder = shared_folder(tmp_path)
    jar = folder / "jar"
    plant = (f'p="{jar}.wspipe-$$" && : > "$p" && chmod 666 "$p" && chown {NOBODY}:{NOBODY} "$p"')
    res = run_planting(wspipe_bin, plant, ["-c", str(jar), srv.url("/")])
    assert res.code == 0, res
    st = os.lstat(jar)
    assert stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid(), st
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert "SECRET-SESSION" in jar.read_text()
    for other in folder.iterdir():
        if other.name != "jar":
            assert os.lstat(other).st_uid == NOBODY and other.read_text() == "", f"{other.name} holds the cookies"


def test_a_link_planted_at_the_jars_temporary_name_is_not_followed(wspipe_bin, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    folder = shared_folder(tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    jar = folder / "jar"
    res = run_planting(wspipe_bin, f'ln -s "{victim}" "{jar}.wspipe-$$"', ["-c", str(jar), srv.url("/")])
    assert res.code == 0, res
    assert victim.read_text() == "precious\n"
    assert "SECRET-SESSION" in jar.read_text()
    assert stat.S_IMODE(os.lstat(jar).st_mode) == 0o600


def test_a_jar_that_is_a_link_to_a_file_is_refused(run, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    jar = tmp_path / "jar"
    jar.symlink_to(victim)
    res = run(["-c", str(jar), srv.url("/")], stdin=b'{"n":1}\n')
    assert "symbolic link" in res.stderr and "cookie jar" in res.stderr, res
    assert victim.read_text() == "precious\n"


@needs_root
def test_a_jar_on_a_device_is_written_into_not_replaced(run, ws_server, tmp_path):
    """curl's `-c /dev/null`: renaming a file over it, as root, replaced
    /dev/null itself. (A node of our own, equal to /dev/null, stands for it
    here: a wspipe with the bug must not break the machine's.)"""
    srv = cookie_server(ws_server)
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    link = tmp_path / "stdout"
    link.symlink_to(null)
    for jar in (null, link):
        res = run(["-c", str(jar), srv.url("/")], stdin=b'{"n":1}\n')
        assert res.code == 0, res
        assert stat.S_ISCHR(os.lstat(null).st_mode), "the device was replaced by a file"
        assert os.path.islink(link)


def test_record_does_not_follow_a_planted_link(run, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    os.chmod(victim, 0o644)
    record = tmp_path / "record.ndjson"
    record.symlink_to(victim)
    res = run(["--record", str(record), srv.url("/")], stdin=b'{"token":"t0ps3cret"}\n')
    assert res.code == 1, res
    assert "--record" in res.stderr and "symbolic link" in res.stderr, res
    assert victim.read_text() == "precious\n" and stat.S_IMODE(os.stat(victim).st_mode) == 0o644


def test_record_narrows_an_existing_files_mode(run, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    record = tmp_path / "record.ndjson"
    record.write_text("")
    os.chmod(record, 0o644)
    res = run(["--record", str(record), srv.url("/")], stdin=b'{"token":"t0ps3cret"}\n')
    assert res.code == 0, res
    assert "t0ps3cret" in record.read_text()
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o600


@needs_root
def test_record_refuses_a_file_another_user_made_first(wspipe_bin, ws_server, tmp_path):
    srv = cookie_server(ws_server)
    folder = shared_folder(tmp_path)
    record = folder / "record.ndjson"
    record.write_text("")
    os.chmod(record, 0o666)
    os.chown(record, NOBODY, NOBODY)
    res = WsProc([wspipe_bin, "--record", str(record), srv.url("/")], stdin=b'{"token":"t0ps3cret"}\n').finish()
    assert res.code == 1, res
    assert "another user" in res.stderr, res
    assert record.read_text() == ""


def test_record_to_dev_stderr_still_works(run, ws_server):
    srv = cookie_server(ws_server)
    res = run(["--record", "/dev/stderr", srv.url("/")], stdin=b'{"token":"t0ps3cret"}\n')
    assert res.code == 0, res
    assert '"t0ps3cret"' in res.stderr
