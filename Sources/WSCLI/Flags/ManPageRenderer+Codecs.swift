/// The man page's BINARY CODECS section: what --codec makes of binary
/// messages, and the envelopes that keep what JSON lacks (WSCodecs).
extension ManPageRenderer {
    static func binaryCodecs(_ page: inout RoffPage) {
        page.paragraphs([
            "Many chat, game and trading servers send MessagePack or CBOR in binary messages to save bytes "
                + "(SignalR's MessagePack protocol, Centrifugo). With --codec msgpack or --codec cbor, each binary "
                + "message that arrives is written as one JSON line holding its value, and each JSON line is sent "
                + "as a binary message holding its value: the lines of stdin, and the messages wspipe makes "
                + "(--on-connect, --answer, --heartbeat, --wrap, --replay). Routes, --type-key, --until, --capture, "
                + "--answer, --ack, --reply and --record read and write the JSON. Text messages are written as "
                + "they are, and a {\"$text\":\"...\"} or {\"$binary\":\"...\"} line still sends a text message or "
                + "raw bytes (a handshake in text before the binary messages, as SignalR's).",
            "nil and null, booleans, integers, floats, strings, arrays, and maps whose keys are strings are "
                + "their JSON equivalents. An integer is a JSON number without fraction or exponent; a float is "
                + "always written with one (2.0, never 2; 1e+300), so it comes back as a float, with the shortest "
                + "digits that read back as the same double. A float 32 is written as the double of the same "
                + "value, and floats are sent as float 64. Strings are checked as UTF-8. What JSON lacks is "
                + "written in an object whose keys start with $, an envelope:",
        ])
        page.nestedItems([
            ("{\"$bytes\":\"BASE64\"}", "A byte string (MessagePack bin, CBOR major type 2), in standard base64."),
            ("{\"$ext\":N,\"$bytes\":\"BASE64\"}",
             "MessagePack extension type N (-128 to 127; -1 is the timestamp) and its data."),
            ("{\"$tag\":N,\"value\":V}",
             "CBOR tag N on the value V. The bignums of tags 2 and 3 are read as integers."),
            ("{\"$map\":[[KEY,VALUE],...]}",
             "A map with a key that is not a string, or that is one of the envelope keys ($bytes, $ext, $tag, "
                + "$map, $float, $undefined, $int, $simple, $text, $binary), its entries in order, so that no "
                + "map reads back as an envelope."),
            ("{\"$float\":\"NaN\"}", "NaN, and \"Infinity\" and \"-Infinity\", which JSON lacks."),
            ("{\"$undefined\":true}", "CBOR's undefined."),
            ("{\"$simple\":N}", "Another CBOR simple value (0 to 19, 32 to 255)."),
            ("{\"$int\":\"DIGITS\"}",
             "An integer beyond 2^53 either way, which JSON readers such as jq do not hold exactly: "
                + "-2^63 to 2^64-1 in MessagePack, any size in CBOR (a bignum beyond 64 bits, up to 1000 digits). "
                + "A plain JSON integer of that size is sent exactly too."),
        ])
        page.paragraphs([
            "A value read and sent back is the same value, of the same type, as the format's own libraries read "
                + "it; not always the same bytes: wspipe writes the shortest forms, CBOR with definite lengths, and "
                + "a float 32 comes back as a float 64 of the same value. An envelope's keys may come in any order "
                + "but $tag's, which comes first ({\"$tag\":N,\"value\":V}, as wspipe writes it and jq -S keeps it).",
            "A line whose value the format cannot hold is not sent, and reported like a line that is not JSON "
                + "(\"wspipe: stdin:LINE:COL: reason\", exit status 6): an integer out of MessagePack's range, "
                + "$tag or $undefined in MessagePack, $ext in CBOR, invalid base64, an object that holds an "
                + "envelope key and other keys, a number too large for a double.",
            "A binary message that is not one valid value in the format (cut short, a length longer than what "
                + "follows, a string that is not UTF-8, nesting deeper than 10000, bytes after the value, or JSON "
                + "that would be longer than four times --max-message-size) is not dropped: it is written as "
                + "{\"$binary\":\"...\"} (to the $binary route), stderr says where and why (the first three in full, "
                + "the others only counted, and their number at the end), and the exit status is 5. Lengths are "
                + "checked against the bytes that came before anything is made for them, so memory stays bounded "
                + "whatever a peer announces.",
            "In server mode --relay passes a client's message on as it came, --tag adds \"$client\" to the lines "
                + "of decoded messages and takes it out of a line before the rest is encoded, and with --exec "
                + "each program reads and writes the JSON lines.",
        ])
        page.example([
            "wspipe --codec msgpack wss://feed.example/ws | jq -c 'select(.type == \"trade\") | {price, qty}'",
            "echo '{\"type\":\"sub\",\"id\":{\"$int\":\"18446744073709551615\"}}' | wspipe --codec cbor URL",
        ])
    }
}
