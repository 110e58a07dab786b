"""JSON mode (the default): messages to NDJSON lines and lines to messages."""

from __future__ import annotations

import base64
import json
import os
import re

import pytest

import helpers
from helpers import received_messages


def incoming(spawn, ws_server, messages, args=()):
    """Server sends `messages` then Close 1000; wspipe runs with stdin open."""
    srv = ws_server(helpers.send_then_close(messages))
    return spawn([*args, srv.url()], stdin=b"", close_stdin=False).finish()


def outgoing(run, ws_server, stdin: bytes, args=()):
    """wspipe sends stdin to a recording server; returns (result, messages, closed)."""
    srv = ws_server(helpers.record)
    res = run([*args, srv.url()], stdin=stdin)
    msgs, closed = received_messages(srv.log)
    return res, msgs, closed


# -- incoming ---------------------------------------------------------------


def test_incoming_json_written_byte_for_byte(spawn, ws_server):
    msgs = ['{"a": 1,  "b":"x"}', '[1, 2.50, -0e0, "\\u00e9"]', '"just a string"', "42", "null", " true ",
            '{"nested":{"k":[{},[]]}}']
    res = incoming(spawn, ws_server, msgs)
    assert res.code == 0, res
    assert res.stdout == "".join(m + "\n" for m in msgs).encode()


@pytest.mark.parametrize("sent,expected", [
    ('{\n  "a b": [1.50, -0e0, "x  y"],\n\t"c": {"d": "\\u00e9\\n"}\r\n}',
     '{"a b":[1.50,-0e0,"x  y"],"c":{"d":"\\u00e9\\n"}}'),
    ("[\n1,\n2\n]", "[1,2]"),
    ('\n"str with  spaces"\n', '"str with  spaces"'),
    ('{"k" :\n "v"}', '{"k":"v"}'),
], ids=["object", "array", "string", "colon"])
def test_incoming_json_with_line_breaks_is_compacted(spawn, ws_server, sent, expected):
    res = incoming(spawn, ws_server, [sent])
    assert res.code == 0, res
    assert res.stdout == (expected + "\n").encode()


NON_JSON = ['{"a":', "hello", "tab\there", 'quote " backslash \\ slash /', "\x01\x1f\x7f control",
            "ünïcødé 🎉 \u2028", "", "NaN", "[1,]", "{'a':1}", "line1\nline2", "01", '"unterminated']


def test_incoming_non_json_text_is_wrapped(spawn, ws_server):
    res = incoming(spawn, ws_server, NON_JSON)
    assert res.code == 0, res
    lines = res.lines
    assert len(lines) == len(NON_JSON), res
    for line, sent in zip(lines, NON_JSON):
        assert line.startswith('{"$text":'), line
        assert json.loads(line) == {"$text": sent}


def test_incoming_binary_is_base64(spawn, ws_server):
    blobs = [b"", b"\x00", b"\xfb\xff", b"abc", b"\xfb\xef\xbe\xff", os.urandom(1000)]
    res = incoming(spawn, ws_server, blobs)
    assert res.code == 0, res
    lines = res.lines
    assert len(lines) == len(blobs), res
    for line, blob in zip(lines, blobs):
        assert line.startswith('{"$binary":'), line
        assert json.loads(line) == {"$binary": base64.b64encode(blob).decode()}


def test_incoming_mixed_types_one_line_each_in_order(spawn, ws_server):
    msgs = ['{"n":1}', b"\x01\x02", "plain", "[\n2\n]", '{"n":3}']
    res = incoming(spawn, ws_server, msgs)
    assert res.code == 0, res
    assert res.lines == ['{"n":1}', '{"$binary":"AQI="}', '{"$text":"plain"}', "[2]", '{"n":3}']


# -- outgoing ---------------------------------------------------------------


def test_outgoing_lines_to_messages(run, ws_server):
    stdin = (b'{"a" : 1 }\n'
             b"[1,2]\r\n"
             b"\n"
             b'"str"\n'
             b"\r\n"
             b"42\n"
             b"null\n"
             b'{"$text":"hi \\"x\\"\\n\\u00e9"}\n'
             b'{"$binary":"AAEC/w=="}\n'
             b'{"$binary":""}\n'
             b'{"$binary":"AAEC","x":1}\n'
             b'{"$text":"a","$binary":"AA=="}\n'
             b'{"last":true}')
    res, msgs, closed = outgoing(run, ws_server, stdin)
    assert res.code == 0, res
    assert msgs == ['{"a" : 1 }', "[1,2]", '"str"', "42", "null", 'hi "x"\né', b"\x00\x01\x02\xff", b"",
                    '{"$binary":"AAEC","x":1}', '{"$text":"a","$binary":"AA=="}', '{"last":true}']
    assert res.stdout == b""


def test_outgoing_binary_random_bytes(run, ws_server):
    blobs = [os.urandom(n) for n in (1, 2, 3, 125, 126, 65536)]
    stdin = b"".join(json.dumps({"$binary": base64.b64encode(b).decode()}).encode() + b"\n" for b in blobs)
    res, msgs, _ = outgoing(run, ws_server, stdin)
    assert res.code == 0, res
    assert msgs == blobs


def test_invalid_line_reported_skipped_and_exit_6(run, ws_server):
    res, msgs, _ = outgoing(run, ws_server, b'{"a":1}\nhello\n{"b":2}\n[1,2,]\n{"c":3}\n')
    assert msgs == ['{"a":1}', '{"b":2}', '{"c":3}']
    assert res.code == 6, res
    assert res.stdout == b""
    assert re.search(r"^wspipe: stdin:2:1: \S", res.stderr, re.M), res.stderr
    assert re.search(r"^wspipe: stdin:4:\d+: \S", res.stderr, re.M), res.stderr


def test_lenient_sends_invalid_line_as_text(run, ws_server):
    res, msgs, _ = outgoing(run, ws_server, b'{"a":1}\nhello world\n[1,2,]\n', args=["--lenient"])
    assert res.code == 0, res
    assert msgs == ['{"a":1}', "hello world", "[1,2,]"]


def test_strict_stops_at_first_invalid_line(run, ws_server):
    res, msgs, _ = outgoing(run, ws_server, b'{"a":1}\nhello\n{"b":2}\n', args=["--strict"])
    assert res.code == 6, res
    assert msgs == ['{"a":1}']
    assert re.search(r"^wspipe: stdin:2:1: \S", res.stderr, re.M), res.stderr


def test_pretty_printed_value_is_joined_and_compacted(run, ws_server):
    res, msgs, _ = outgoing(run, ws_server, b'{\n  "a": 1,\n  "b": [1,\n 2]\n}\n')
    assert res.code == 0, res
    assert msgs == ['{"a":1,"b":[1,2]}']


def test_several_pretty_printed_values_like_jq_output(run, ws_server):
    stdin = b'{\n  "a": "x  y"\n}\n{\n  "b": [\n    true\n  ]\n}\n[]\n'
    res, msgs, _ = outgoing(run, ws_server, stdin)
    assert res.code == 0, res
    assert msgs == ['{"a":"x  y"}', '{"b":[true]}', "[]"]


def test_line_numbers_count_physical_lines_after_a_joined_value(run, ws_server):
    res, msgs, _ = outgoing(run, ws_server, b'{\n"a": 1\n}\nhello\n')
    assert res.code == 6, res
    assert msgs == ['{"a":1}']
    assert re.search(r"^wspipe: stdin:4:1: \S", res.stderr, re.M), res.stderr
