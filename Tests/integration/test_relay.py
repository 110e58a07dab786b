"""--relay (wspipe(1): OPTIONS, Server mode): every client's message also goes
to every other client, a chat room with no script; stdout still gets every
message and stdin lines still go to everyone. A client that does not read
holds the others back instead of growing a buffer or losing messages."""

from __future__ import annotations


import helpers
from helpers import events
from test_server_mode import (Receiver, SLOW_LINES, client_id, listen, raw_client, slow_case_lines, start_writer,
                              ws_client)


def test_relay_chat_room_with_three_clients(spawn):
    server, port = listen(spawn, ["--events", "--relay"])
    with ws_client(port) as a, ws_client(port) as b:
        client_id(server, 2)
        c = spawn(["--events", f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
        client_id(server, 3)
        ra, rb = Receiver(a), Receiver(b)
        a.send('{"from":"a","n":1}')
        assert rb.wait(1) == ['{"from":"a","n":1}']
        assert c.wait_stdout_lines(1) == [b'{"from":"a","n":1}']
        b.send(b"\x00\xffbinary")
        assert ra.wait(1) == [b"\x00\xffbinary"]
        assert c.wait_stdout_lines(2)[1] == b'{"$binary":"AP9iaW5hcnk="}'
        helpers.write_lines(c, {"from": "c"}, '{"$text":"plain words"}')
        assert ra.wait(3)[1:] == ['{"from":"c"}', "plain words"]
        assert rb.wait(3)[1:] == ['{"from":"c"}', "plain words"]
        # stdin lines still go to everyone, stdout still gets every client message.
        helpers.write_lines(server, {"from": "server"})
        assert ra.wait(4)[3] == rb.wait(4)[3] == '{"from":"server"}'
        assert c.wait_stdout_lines(3)[2] == b'{"from":"server"}'
        assert server.wait_stdout_lines(4) == [b'{"from":"a","n":1}', b'{"$binary":"AP9iaW5hcnk="}',
                                               b'{"from":"c"}', b'{"$text":"plain words"}']
        # Nobody got their own message back.
        assert ra.count() == 4 and rb.count() == 4
        assert c.out.data().count(b"\n") == 3
    c.close_stdin()
    assert c.finish().code == 0


def test_relay_slow_client_holds_the_sender_back_without_loss(spawn):
    lines = slow_case_lines()
    server, port = listen(spawn, ["--events", "--relay", "--route", "*=drop", "--send-timeout", "0"])
    fast = ws_client(port)
    client_id(server, 1)
    slow, status = raw_client(port, rcvbuf=4096)
    assert status.startswith("HTTP/1.1 101"), status
    id_slow = client_id(server, 2)
    sender = spawn(["-q", f"ws://127.0.0.1:{port}/"], stdin=b"", close_stdin=False)
    client_id(server, 3)
    try:
        with fast:
            rf = Receiver(fast)
            written = start_writer(sender, lines)
            helpers.wait_until_stalled(rf.count, SLOW_LINES)
            assert rf.count() < SLOW_LINES, "a client that reads nothing must hold the relay back"
            rss_kib = helpers.vm_rss_kib(server.proc.pid)
            assert rss_kib < 96 * 1024, f"server RSS {rss_kib} KiB while a relay receiver is stalled"
            slow.close()
            got = rf.wait(SLOW_LINES, timeout=15)
            assert [g.encode() + b"\n" for g in got] == lines, "relayed messages lost or reordered"
            assert written.wait(10)
            gone = events(server.err.data(), "client_disconnected")
            assert [e["id"] for e in gone] == [id_slow], gone
    finally:
        slow.close()
