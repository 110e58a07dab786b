"""Protocol violations a server can commit, as the exact bytes to send.

Shared by test_protocol_violations.py (against wspipe) and test_peers.py
(against the websockets client, to prove the bytes mean what they say).

Each case: (id, bytes the server sends after the handshake, expected Close
code from the client, max message size flag or None).
"""

from peers.raw_peer import OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_TEXT, close_frame, frame

KIB = 1024

VIOLATIONS = [
    ("rsv1_set", frame(OP_TEXT, b'{"a":1}', rsv=4), 1002, None),
    ("rsv2_set", frame(OP_TEXT, b'{"a":1}', rsv=2), 1002, None),
    ("rsv3_set", frame(OP_BINARY, b"\x00", rsv=1), 1002, None),
    ("opcode_3", frame(0x3, b"x"), 1002, None),
    ("opcode_0xB", frame(0xB, b""), 1002, None),
    ("fragmented_ping", frame(OP_PING, b"ping", fin=False), 1002, None),
    ("ping_payload_126", frame(OP_PING, b"p" * 126), 1002, None),
    ("non_minimal_16bit_length", frame(OP_TEXT, b'"12345"', length_bytes=2), 1002, None),
    ("masked_server_frame", frame(OP_TEXT, b'{"a":1}', mask=b"\x11\x22\x33\x44"), 1002, None),
    ("continuation_without_start", frame(OP_CONT, b'{"a":1}'), 1002, None),
    ("text_inside_fragmented_message",
     frame(OP_TEXT, b'{"a":', fin=False) + frame(OP_TEXT, b'{"b":2}'), 1002, None),
    ("close_payload_1_byte", frame(OP_CLOSE, b"\x03"), 1002, None),
    ("close_code_1005", close_frame(1005), 1002, None),
    ("close_code_999", close_frame(999), 1002, None),
    ("invalid_utf8_text", frame(OP_TEXT, b'"ab\xffcd"'), 1007, None),
    # Text the JSON validator rejects before it reaches the bad byte, or
    # where the byte is not inside a string: the UTF-8 check still runs.
    ("invalid_utf8_in_text_that_is_not_json", frame(OP_TEXT, b"ab \xc0\xaf cd"), 1007, None),
    ("invalid_utf8_after_a_json_value", frame(OP_TEXT, b'{"a":1}\xed\xa0\x80'), 1007, None),
    # Only the first fragment is ever sent: the client must fail as soon as
    # it sees the bad byte, not wait for the end of the message.
    ("invalid_utf8_in_first_fragment", frame(OP_TEXT, b'"ab\xff', fin=False), 1007, None),
    ("message_over_max_size", frame(OP_TEXT, b'"' + b"x" * 2000 + b'"'), 1009, "1K"),
    # Announces 1 MiB but sends 10 bytes: the header alone must trigger 1009.
    ("announced_length_over_max_size", frame(OP_BINARY, b"x" * 10, length=1 << 20), 1009, "1K"),
    ("fragments_over_max_size",
     frame(OP_TEXT, b'"' + b"a" * 600, fin=False) + frame(OP_CONT, b"a" * 600 + b'"'), 1009, "1K"),
    # A message may arrive in one frame per 64 bytes of the limit, at least
    # 65536: empty fragments (which no size limit sees) stop at the next one.
    ("empty_fragments_past_the_frame_limit",
     frame(OP_TEXT, b'"', fin=False) + frame(OP_CONT, b"", fin=False) * 65536, 1009, "1K"),
]

SIZE = {"1K": 1 * KIB}
