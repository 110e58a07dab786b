"""--codec msgpack|cbor against the formats' reference libraries (msgpack and
cbor2 from PyPI) as real peers: every type of each format goes through
wspipe both ways and is compared by the library itself; hostile messages
are bounded with a clear error; the JSON the messages become is routed,
answered and addressed like any JSON line."""

from __future__ import annotations

import json
import math
import random
import struct

import pytest

import helpers
from helpers import received_messages

msgpack = pytest.importorskip("msgpack", reason="msgpack (PyPI) is not installed: Tests/run installs it")
cbor2 = pytest.importorskip("cbor2", reason="cbor2 (PyPI) is not installed: Tests/run installs it")


# -- the formats, as their libraries write and read them ---------------------


def pack(fmt: str, value, single_float: bool = False) -> bytes:
    if fmt == "msgpack":
        return msgpack.packb(value, use_bin_type=True, use_single_float=single_float, strict_types=False)
    return cbor2.dumps(value)


def unpack(fmt: str, data: bytes):
    if fmt == "msgpack":
        return msgpack.unpackb(data, raw=False, strict_map_key=False, timestamp=0)
    return cbor2.loads(data)


def same(a, b) -> bool:
    """Equal as the library reads them: same types (bool is not int, int
    is not float, str is not bytes), NaN equal to NaN, containers in order."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return len(a) == len(b) and all(same(k1, k2) and same(a[k1], b[k2]) for k1, k2 in zip(a, b))
    if fmt_tag(a):
        return a.tag == b.tag and same(a.value, b.value)
    if isinstance(a, msgpack.ExtType):
        return a.code == b.code and a.data == b.data
    return a == b


def fmt_tag(value) -> bool:
    return isinstance(value, cbor2.CBORTag)


class Values:
    """Random values of one format's data model, nested, of every type."""

    def __init__(self, fmt: str, seed: int):
        self.fmt = fmt
        self.rnd = random.Random(seed)

    def text(self) -> str:
        pieces = ["a", "Z", " ", '"', "\\", "\n", "\t", "\x01", "\x7f", "é", "€", "😀", "中", "/", "$", "\u2028"]
        return "".join(self.rnd.choice(pieces) for _ in range(self.rnd.randint(0, 12)))

    def number(self):
        r = self.rnd
        kind = r.randint(0, 9)
        if kind == 0:
            return r.randint(-40, 200)
        if kind == 1:
            return r.choice([2**53, 2**53 + 1, 2**63 - 1, 2**64 - 1, -(2**63), -(2**53) - 1, 2**32, -(2**31) - 1])
        if kind == 2:
            return r.randint(-(2**63), 2**64 - 1)
        if kind == 3 and self.fmt == "cbor":
            return r.choice([1, -1]) * r.randint(2**64, 2**200)   # bignums
        if kind == 4:
            return r.choice([0.1, 1 / 3, -2.5e-308, 1e300, 5e-324, 123456.789, -0.0, 2.0, 1e16, 0.30000000000000004])
        if kind == 5:
            return struct.unpack(">d", r.randbytes(8))[0]   # any double, NaN included
        if kind == 6:
            return r.choice([math.inf, -math.inf, math.nan])
        return r.uniform(-1e6, 1e6)

    def leaf(self):
        r = self.rnd
        kind = r.randint(0, 8)
        if kind == 0:
            return None
        if kind == 1:
            return r.random() < 0.5
        if kind in (2, 3):
            return self.number()
        if kind == 4:
            return self.text()
        if kind == 5:
            return r.randbytes(r.randint(0, 40))
        if kind == 6:
            if self.fmt == "msgpack":
                if r.random() < 0.2:   # ext -1, which the library reads as a Timestamp
                    return msgpack.Timestamp(r.randint(0, 2**34 - 1), r.randint(0, 999_999_999))
                return msgpack.ExtType(r.randint(0, 127), r.randbytes(r.choice([0, 1, 2, 4, 8, 16, 3, 300])))
            return cbor2.CBORTag(r.randint(1000, 2**32), self.leaf())
        if kind == 7 and self.fmt == "cbor":
            return r.choice([cbor2.undefined, cbor2.CBORSimpleValue(r.choice([0, 5, 19, 32, 200, 255]))])
        return r.choice(["$bytes", "$text", "value", "$int", "$"])

    def value(self, depth: int = 0):
        r = self.rnd
        if depth > 4 or r.random() < 0.4:
            return self.leaf()
        if r.random() < 0.5:
            return [self.value(depth + 1) for _ in range(r.randint(0, 6))]
        out = {}
        for _ in range(r.randint(0, 6)):
            choice = r.randint(0, 9)
            if choice < 6:
                key = self.text()
            elif choice < 7:
                key = r.choice(["$bytes", "$map", "$text", "$tag", "$ext"])
            elif choice < 8:
                key = r.randint(-5, 2**40)
            elif choice < 9:
                key = r.randbytes(3) if self.fmt == "cbor" else r.random() < 0.5
            else:
                key = None if self.fmt == "msgpack" else 1.5
            out[key] = self.value(depth + 1)
        return out


# -- peers ---------------------------------------------------------------------


def fetch_lines(spawn, ws_server, fmt: str, messages: list, args=()):
    """A server sends `messages` (binary or text) then Close 1000; wspipe's stdout lines."""
    srv = ws_server(helpers.send_then_close(messages))
    return spawn(["--codec", fmt, *args, srv.url()], stdin=b"", close_stdin=False).finish(30)


def send_lines(run, ws_server, fmt: str, lines: list[str], args=()):
    """wspipe sends `lines` to a recording server; the result and the messages it got."""
    srv = ws_server(helpers.record)
    res = run(["--codec", fmt, *args, srv.url()], stdin="".join(line + "\n" for line in lines).encode(), timeout=30)
    msgs, _ = received_messages(srv.log, timeout=30)
    return res, msgs


# -- round trips -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["msgpack", "cbor"])
def test_every_type_round_trips_through_wspipe_both_ways(spawn, run, ws_server, fmt):
    """The library packs random values; wspipe writes them as JSON lines; a
    second wspipe sends those lines back; the library reads the same values."""
    values = [Values(fmt, seed).value() for seed in range(300)]
    # Some messages with float 32 on the wire (msgpack's use_single_float).
    messages = []
    for i, v in enumerate(values):
        try:
            messages.append(pack(fmt, v, single_float=(fmt == "msgpack" and i % 5 == 0)))
        except OverflowError:   # a double too large for a float 32
            messages.append(pack(fmt, v))
    if fmt == "msgpack":
        values = [unpack(fmt, m) for m in messages]   # what a float 32 holds
    res = fetch_lines(spawn, ws_server, fmt, messages)
    assert res.code == 0, res
    lines = res.lines
    assert len(lines) == len(messages), res
    for line in lines:
        json.loads(line)   # every line is JSON

    res2, back = send_lines(run, ws_server, fmt, lines)
    assert res2.code == 0, res2
    assert len(back) == len(values)
    for sent, line, got in zip(values, lines, back):
        assert isinstance(got, bytes), got
        assert same(unpack(fmt, got), sent), f"{sent!r} became {line} and came back {unpack(fmt, got)!r}"


@pytest.mark.parametrize("fmt", ["msgpack", "cbor"])
def test_json_lines_are_sent_as_the_values_json_readers_see(run, ws_server, fmt):
    """Lines from a JSON writer: integers stay integers (however big), numbers
    with a fraction or exponent are the double Python reads."""
    cases = ['{"a":1,"b":[true,false,null],"c":"x\\u00e9\\n"}', "1E+2", "-0", "0.1", "1e-7", "123456789.123456789",
             "18446744073709551615", "-9223372036854775808", "[]", "{}", '"\\ud83d\\ude00"', "2.5e-308",
             '{"n": 1.7976931348623157e308}', " [ 1 , 2 ] "]
    if fmt == "cbor":
        cases += ["340282366920938463463374607431768211456", "-18446744073709551617"]
    res, msgs = send_lines(run, ws_server, fmt, cases)
    assert res.code == 0, res
    assert len(msgs) == len(cases)
    for line, msg in zip(cases, msgs):
        assert same(unpack(fmt, msg), json.loads(line)), (line, unpack(fmt, msg))


def test_envelopes_stand_for_what_json_lacks(run, ws_server):
    res, msgs = send_lines(run, ws_server, "msgpack", [
        '{"$bytes":"AQID"}', '{"$ext":-1,"$bytes":"AAAAAQ=="}', '{"$map":[[1,"one"],[[2],"two"]]}',
        '{"$float":"-Infinity"}', '{"$int":"-9223372036854775808"}', '{"k":{"$bytes":""}}'])
    assert res.code == 0, res
    got = [unpack("msgpack", m) if i != 2 else None for i, m in enumerate(msgs)]
    assert got[0] == b"\x01\x02\x03"
    assert got[1] == msgpack.Timestamp(1, 0)
    assert msgpack.unpackb(msgs[2], strict_map_key=False, use_list=False) == {1: "one", (2,): "two"}
    assert got[3] == -math.inf and got[4] == -(2**63) and got[5] == {"k": b""}
    res, msgs = send_lines(run, ws_server, "cbor", [
        '{"$tag":32,"value":"http://x/"}', '{"$undefined":true}', '{"$simple":16}',
        '{"$int":"-340282366920938463463374607431768211457"}', '{"$tag":1000,"value":{"$bytes":"AA=="}}'])
    assert res.code == 0, res
    got = [unpack("cbor", m) for m in msgs]
    assert got[0] == cbor2.CBORTag(32, "http://x/") or str(got[0]) == "http://x/"
    assert got[1] is cbor2.undefined and got[2] == cbor2.CBORSimpleValue(16)
    assert got[3] == -(2**128) - 1 and got[4] == cbor2.CBORTag(1000, b"\x00")


def test_what_the_format_cannot_hold_is_reported_with_its_line(run, ws_server):
    res, msgs = send_lines(run, ws_server, "msgpack", [
        '{"n":1}', '{"id":{"$int":"18446744073709551616"}}', '{"$tag":1,"value":2}', '{"a":1,"$bytes":"AA=="}',
        '[1e999]', '{"n":2}'])
    assert res.code == 6, res
    assert [unpack("msgpack", m) for m in msgs] == [{"n": 1}, {"n": 2}]
    assert "stdin:2:16: integer out of MessagePack's range" in res.stderr, res
    assert "stdin:3:1: $tag is a CBOR tag" in res.stderr, res
    assert "stdin:4:8: \"$bytes\" is an envelope key" in res.stderr, res
    assert "stdin:5:2: number too large for a 64-bit float" in res.stderr, res


def test_text_messages_and_envelopes_of_lines_pass_as_they_are(spawn, run, ws_server):
    """SignalR's MessagePack protocol: a JSON handshake in a text message, then binary."""
    res, msgs = send_lines(run, ws_server, "msgpack",
                           ['{"$text":"{\\"protocol\\":\\"messagepack\\",\\"version\\":1}\\u001e"}',
                            '{"$text":"123"}', '{"$binary":"kwEC"}', "[1,2]"])
    assert res.code == 0, res
    assert msgs[0] == '{"protocol":"messagepack","version":1}\x1e'
    assert msgs[1] == "123"
    assert msgs[2] == b"\x93\x01\x02"   # raw bytes, as given (here: an unfinished array)
    assert msgs[3] == b"\x92\x01\x02"
    res = fetch_lines(spawn, ws_server, "cbor", ['{"type":"hello"}', "not json", cbor2.dumps({"type": "x"})])
    assert res.code == 0, res
    assert res.lines == ['{"type":"hello"}', '{"$text":"not json"}', '{"type":"x"}']


# -- hostile messages ----------------------------------------------------------


HOSTILE = {
    "msgpack": [
        (b"\x92\x01", "an array of 2 items is announced, but only 1 byte(s) follow"),
        (b"\xdb\xff\xff\xff\xff" + b"x" * 10, "a string of 4294967295 bytes is announced, but only 10 byte(s) follow"),
        (b"\xdd\xff\xff\xff\xff\x01", "an array of 4294967295 items"),
        (b"\xc6\x00\x01\x00\x00abc", "a byte string of 65536 bytes"),
        (b"\x91" * 100_000 + b"\xc0", "nesting deeper than 10000"),
        (b"\xa2\xc3\x28", "string is not valid UTF-8"),
        (b"\x01\x02", "1 byte(s) after the value"),
        (b"\xc1", "0xc1"),
    ],
    "cbor": [
        (b"\x82\x01", "an array of 2 items is announced, but only 1 byte(s) follow"),
        (b"\xc6", "message ends where a data item was expected"),
        (b"\x7a\xff\xff\xff\xff" + b"x" * 10, "a text string of 4294967295 bytes is announced, but only 10 byte(s) follow"),
        (b"\x9b" + b"\xff" * 8, "an array of 18446744073709551615 items"),
        (b"\xc6" * 100_000 + b"\xf6", "nesting deeper than 10000"),
        (b"\x9f" * 100_000, "nesting deeper than 10000"),
        (b"\x1c", "reserved additional information 28"),
        (b"\xff", "break (0xff)"),
    ],
}


@pytest.mark.parametrize("fmt", ["msgpack", "cbor"])
def test_hostile_messages_are_bounded_reported_and_kept(spawn, ws_server, fmt):
    """Each bad message is written as $binary (nothing is dropped), the first
    three said with where and why, the rest counted; the good ones around
    them are decoded; the run ends with status 5."""
    bad = HOSTILE[fmt]
    good = pack(fmt, {"type": "ok"})
    messages = [good] + [m for m, _ in bad] + [good]
    res = fetch_lines(spawn, ws_server, fmt, messages, args=["--stats"])
    assert res.code == 5, res
    lines = res.lines
    assert len(lines) == len(messages), res
    assert lines[0] == lines[-1] == '{"type":"ok"}'
    import base64
    for line, (message, _) in zip(lines[1:-1], bad):
        assert json.loads(line) == {"$binary": base64.b64encode(message).decode()}
    name = "MessagePack" if fmt == "msgpack" else "CBOR"
    for _, reason in bad[:3]:
        assert f"is not valid {name} (at byte" in res.stderr and reason in res.stderr, (reason, res.stderr)
    assert f"{len(bad)} binary message(s) were not valid {name}" in res.stderr, res


# -- the JSON is handled as any JSON line ---------------------------------------


def test_routes_type_key_until_and_answers_read_the_decoded_json(spawn, ws_server, tmp_path):
    trades = tmp_path / "trades.ndjson"

    async def handler(ws, log):
        await ws.send(msgpack.packb({"event": {"kind": "trade"}, "px": 101.25}))
        await ws.send(msgpack.packb({"event": {"kind": "ping"}, "n": 7}))
        log.put("msg", await ws.recv())   # the --answer
        await ws.send(msgpack.packb({"event": {"kind": "book"}, "bids": [[100.5, 3]]}))
        await ws.send(msgpack.packb({"event": {"kind": "done"}}))
        async for message in ws:
            log.put("msg", message)

    srv = ws_server(handler)
    res = spawn(["--codec", "msgpack", "--type-key", "event.kind", "--route", f"trade={trades}",
                 "--answer", 'ping={"event":{"kind":"pong"},"n":${.n}}', "--until", "event.kind=done",
                 srv.url()], stdin=b"", close_stdin=False).finish(20)
    assert res.code == 0, res
    assert res.lines == ['{"event":{"kind":"ping"},"n":7}', '{"event":{"kind":"book"},"bids":[[100.5,3]]}',
                         '{"event":{"kind":"done"}}']
    assert trades.read_text() == '{"event":{"kind":"trade"},"px":101.25}\n'
    answer = srv.log.get()
    assert answer[0] == "msg" and msgpack.unpackb(answer[1]) == {"event": {"kind": "pong"}, "n": 7}


def test_server_mode_decodes_clients_and_encodes_lines_with_tag_addressing(spawn):
    from websockets.sync.client import connect
    import signal
    proc = spawn(["--listen", "127.0.0.1:0/", "--codec", "cbor", "--tag", "--events"], stdin=b"", close_stdin=False)
    port = int(proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)").group(2))
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, max_size=None) as a, \
            connect(f"ws://127.0.0.1:{port}/", open_timeout=5, max_size=None) as b:
        ids = [e["id"] for e in helpers.wait_events(proc, "client_connected", 2) if e["$event"] == "client_connected"]
        a.send(cbor2.dumps({"type": "hi", "big": 2**70, "raw": b"\x00\xff"}))
        line = json.loads(proc.wait_stdout_lines(1, timeout=10)[0])
        assert line == {"$client": ids[0], "type": "hi", "big": {"$int": str(2**70)}, "raw": {"$bytes": "AP8="}}
        helpers.write_lines(proc, json.dumps({"$client": ids[1], "to": "b", "t": {"$tag": 1, "value": 0}}),
                            '{"all":true}')
        got_b = [cbor2.loads(b.recv(timeout=10)) for _ in range(2)]
        assert got_b == [{"to": "b", "t": cbor2.loads(cbor2.dumps(cbor2.CBORTag(1, 0)))}, {"all": True}]
        assert cbor2.loads(a.recv(timeout=10)) == {"all": True}
    proc.signal(signal.SIGINT)
    assert proc.finish(15).code == 130


def test_exec_programs_read_and_write_json_lines(spawn):
    from websockets.sync.client import connect
    proc = spawn(["--listen", "127.0.0.1:0/", "--once", "--codec", "msgpack", "--exec",
                  "while read -r line; do printf '{\"echo\":%s}\\n' \"$line\"; done"], stdin=b"", close_stdin=False)
    port = int(proc.wait_stderr(r"wspipe: listening on (\S+):(\d+)").group(2))
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=5, max_size=None) as ws:
        ws.send(msgpack.packb({"k": [1, 2.5, b"\x01"]}))
        assert msgpack.unpackb(ws.recv(timeout=10)) == {"echo": {"k": [1, 2.5, b"\x01"]}}
    proc.close_stdin()
    assert proc.finish(15).code == 0


def test_codec_refuses_raw_line_mode(run):
    res = run(["--codec", "msgpack", "-t", "ws://127.0.0.1:9/"])
    assert res.code == 2 and "--codec" in res.stderr and "--text" in res.stderr, res
    res = run(["--codec", "json", "ws://127.0.0.1:9/"])
    assert res.code == 2 and "msgpack" in res.stderr and "cbor" in res.stderr, res
