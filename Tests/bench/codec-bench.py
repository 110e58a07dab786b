#!/usr/bin/env python3
"""The --codec scenario of the benchmark: how fast wspipe turns MessagePack
(and CBOR) messages into JSON lines, against its JSON path on the same messages.

A peer (a raw socket: handshake, then every frame at once, then Close 1000)
sends N messages to `wspipe -U [--codec FORMAT] URL >/dev/null`, which runs
under valgrind's callgrind. Instruction counts, unlike wall-clock times, do
not move with the load of the machine. The cost of one message is
(instructions with N messages - instructions with none) / N; the speed
ratio is the JSON path's cost over the codec's (1.0: as fast; the goal,
issue 32: at least 0.8).

The messages are the same values both ways: the JSON text is what a server
would send, and the MessagePack (CBOR) one holds the same value, encoded
here (no package needed; CBOR floats as float64, as cbor2 writes them). 100 B: a trade, ~100 bytes of JSON. 16 KiB: a page of chat
history, records of strings, integers and a float, ~16 KiB of JSON.

Usage: Tests/bench/codec-bench.py [--wspipe PATH] [--n100 N] [--n16k N] [--codec msgpack|cbor|both]
Needs valgrind. Not part of Tests/run.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading


def msgpack(value) -> bytes:
    """MessagePack of a JSON value, shortest forms (the msgpack spec)."""
    if value is None:
        return b"\xc0"
    if value is True or value is False:
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        if 0 <= value < 128:
            return bytes([value])
        if -32 <= value < 0:
            return struct.pack(">b", value)
        if value >= 0:
            for code, fmt, top in ((0xcc, ">B", 0xff), (0xcd, ">H", 0xffff), (0xce, ">I", 0xffffffff), (0xcf, ">Q", 2**64 - 1)):
                if value <= top:
                    return bytes([code]) + struct.pack(fmt, value)
        for code, fmt, low in ((0xd0, ">b", -128), (0xd1, ">h", -32768), (0xd2, ">i", -2**31), (0xd3, ">q", -2**63)):
            if value >= low:
                return bytes([code]) + struct.pack(fmt, value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        n = len(data)
        head = bytes([0xa0 | n]) if n < 32 else b"\xd9" + bytes([n]) if n < 256 else b"\xda" + struct.pack(">H", n)
        return head + data
    if isinstance(value, list):
        n = len(value)
        head = bytes([0x90 | n]) if n < 16 else b"\xdc" + struct.pack(">H", n)
        return head + b"".join(msgpack(v) for v in value)
    n = len(value)
    head = bytes([0x80 | n]) if n < 16 else b"\xde" + struct.pack(">H", n)
    return head + b"".join(msgpack(k) + msgpack(v) for k, v in value.items())


def cbor(value) -> bytes:
    """CBOR of a JSON value (RFC 8949), shortest heads, floats as float64."""
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        for info, fmt, top in ((24, ">B", 0xff), (25, ">H", 0xffff), (26, ">I", 0xffffffff), (27, ">Q", 2**64 - 1)):
            if n <= top:
                return bytes([major << 5 | info]) + struct.pack(fmt, n)
        raise ValueError(n)
    if value is None:
        return b"\xf6"
    if value is True or value is False:
        return b"\xf5" if value else b"\xf4"
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, float):
        return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(v) for v in value)
    return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())


def trade(rnd: random.Random, i: int) -> dict:
    return {"type": "trade", "id": 4_000_000 + i, "sym": "BTC-USD", "px": round(64000 + rnd.random() * 500, 2),
            "qty": rnd.choice([0.125, 0.5, 1.0, 2.25]), "side": rnd.choice(["buy", "sell"]), "ts": 1_700_000_000_123 + i}


WORDS = "the quick brown fox jumps over a lazy dog while servers send binary frames to save bytes".split()


def history(rnd: random.Random, i: int) -> dict:
    page = {"type": "history", "room": "general", "page": i, "messages": []}
    while len(json.dumps(page, separators=(",", ":"))) < 16_000:
        page["messages"].append({"id": rnd.randrange(10**9), "user": rnd.choice(["ana", "bo", "chidi", "dmitri"]),
                                 "text": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 14))),
                                 "ts": 1_700_000_000_000 + rnd.randrange(10**7), "score": round(rnd.random(), 3)})
    return page


def frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 126]) + struct.pack(">H", n)
    else:
        head = bytes([0x80 | opcode, 127]) + struct.pack(">Q", n)
    return head + payload


def serve_once(listener: socket.socket, stream: bytes) -> None:
    """One connection: the 101, `stream` (the frames and a Close), then read to EOF."""
    conn, _ = listener.accept()
    with conn:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        key = re.search(rb"(?i)sec-websocket-key:\s*(\S+)", request).group(1)
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n" + stream)
        while conn.recv(65536):
            pass


def instructions(wspipe: str, args: list[str], messages: list[bytes], opcode: int, workdir: str) -> int:
    """Instructions callgrind counts for wspipe receiving `messages`."""
    stream = b"".join(frame(opcode, m) for m in messages) + frame(0x8, struct.pack(">H", 1000))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    peer = threading.Thread(target=serve_once, args=(listener, stream), daemon=True)
    peer.start()
    out = os.path.join(workdir, "callgrind.out")
    url = f"ws://127.0.0.1:{listener.getsockname()[1]}/"
    with open(os.devnull, "wb") as null:
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, wspipe, "-U", *args, url],
                       stdin=subprocess.DEVNULL, stdout=null, stderr=subprocess.DEVNULL, check=True, timeout=1800)
    peer.join(10)
    listener.close()
    with open(out) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("no total in the callgrind output")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wspipe", default=".build/release/wspipe")
    parser.add_argument("--n100", type=int, default=20_000)
    parser.add_argument("--n16k", type=int, default=1_000)
    parser.add_argument("--codec", choices=("msgpack", "cbor", "both"), default="both")
    options = parser.parse_args()
    formats = [("msgpack", msgpack), ("cbor", cbor)]
    if options.codec != "both":
        formats = [f for f in formats if f[0] == options.codec]
    rnd = random.Random(32)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name, make, n in (("100 B", trade, options.n100), ("16 KiB", history, options.n16k)):
            values = [make(rnd, i) for i in range(n)]
            texts = [json.dumps(v, separators=(",", ":")).encode() for v in values]
            base_json = instructions(options.wspipe, [], [], 0x1, workdir)
            per_json = (instructions(options.wspipe, [], texts, 0x1, workdir) - base_json) / n
            for codec, encode in formats:
                packed = [encode(v) for v in values]
                base_codec = instructions(options.wspipe, ["--codec", codec], [], 0x2, workdir)
                per_codec = (instructions(options.wspipe, ["--codec", codec], packed, 0x2, workdir) - base_codec) / n
                rows.append((name, n, codec, sum(map(len, texts)) / n, sum(map(len, packed)) / n, per_json, per_codec))
    print(f"{'messages':>9} {'count':>7} {'codec':>8} {'JSON B':>8} {'binary B':>9} {'JSON Ir/msg':>12} {'codec Ir/msg':>13} {'speed ratio':>12}")
    for name, n, codec, json_bytes, packed_bytes, per_json, per_codec in rows:
        print(f"{name:>9} {n:>7} {codec:>8} {json_bytes:>8.0f} {packed_bytes:>9.0f} {per_json:>12.0f} {per_codec:>13.0f} "
              f"{per_json / per_codec:>11.2f}x")
    print("speed ratio: the JSON path's instructions per message over --codec's (goal: at least 0.80x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
