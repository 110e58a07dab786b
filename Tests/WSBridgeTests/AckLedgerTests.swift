import XCTest
@testable import WSBridge

/// --ack KEYPATH: holding sent messages until the same value comes back (wspipe(1): RECONNECT AND REPLAY).
final class AckLedgerTests: XCTestCase {
    @discardableResult
    private func send(_ ledger: inout AckLedger, _ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { ledger.sent($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    private func receive(_ ledger: inout AckLedger, _ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { ledger.received($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    private func held(_ ledger: AckLedger) -> [String] {
        var messages: [String] = []
        ledger.forEachHeld { messages.append(String(decoding: $0, as: UTF8.self)) }
        return messages
    }

    private func keys(_ ledger: AckLedger) -> [String] {
        ledger.heldKeys.map { String(decoding: $0, as: UTF8.self) }
    }

    func testHoldAndReleaseInOrder() {
        var ledger = AckLedger(path: ["seq"])
        XCTAssertTrue(ledger.isEmpty)
        XCTAssertEqual(send(&ledger, #"{"seq":1,"m":"a"}"#), "1")
        XCTAssertEqual(send(&ledger, #"{"seq":2,"m":"b"}"#), "2")
        XCTAssertEqual(send(&ledger, #"{"seq":3,"m":"c"}"#), "3")
        XCTAssertEqual(ledger.count, 3)
        XCTAssertFalse(ledger.isEmpty)
        XCTAssertEqual(held(ledger), [#"{"seq":1,"m":"a"}"#, #"{"seq":2,"m":"b"}"#, #"{"seq":3,"m":"c"}"#])

        XCTAssertEqual(receive(&ledger, #"{"type":"ack","seq":1}"#), #"{"seq":1,"m":"a"}"#)
        XCTAssertEqual(receive(&ledger, #"{"type":"ack","seq":3}"#), #"{"seq":3,"m":"c"}"#)
        XCTAssertEqual(held(ledger), [#"{"seq":2,"m":"b"}"#])
        XCTAssertEqual(ledger.count, 1)
        XCTAssertEqual(receive(&ledger, #"{"seq":2}"#), #"{"seq":2,"m":"b"}"#)
        XCTAssertTrue(ledger.isEmpty)
        XCTAssertEqual(held(ledger), [])
    }

    func testUnknownAndRepeatedAcksReleaseNothing() {
        var ledger = AckLedger(path: ["seq"])
        XCTAssertNil(receive(&ledger, #"{"seq":1}"#))
        send(&ledger, #"{"seq":1}"#)
        XCTAssertNil(receive(&ledger, #"{"seq":2}"#))
        XCTAssertNil(receive(&ledger, #"{"other":1}"#))
        XCTAssertNil(receive(&ledger, #"[1]"#))
        XCTAssertNotNil(receive(&ledger, #"{"seq":1}"#))
        XCTAssertNil(receive(&ledger, #"{"seq":1}"#))
        XCTAssertEqual(ledger.count, 0)
    }

    func testDuplicateKeysReleaseOldestFirst() {
        var ledger = AckLedger(path: ["id"])
        send(&ledger, #"{"id":"x","n":1}"#)
        send(&ledger, #"{"id":"y","n":2}"#)
        send(&ledger, #"{"id":"x","n":3}"#)
        send(&ledger, #"{"id":"x","n":4}"#)
        XCTAssertEqual(keys(ledger), [#""x""#, #""y""#, #""x""#, #""x""#])
        XCTAssertEqual(receive(&ledger, #"{"id":"x"}"#), #"{"id":"x","n":1}"#)
        XCTAssertTrue(ledger.isHeld(key: Array(#""x""#.utf8)))
        XCTAssertEqual(receive(&ledger, #"{"id":"x"}"#), #"{"id":"x","n":3}"#)
        XCTAssertEqual(held(ledger), [#"{"id":"y","n":2}"#, #"{"id":"x","n":4}"#])
        send(&ledger, #"{"id":"x","n":5}"#)
        XCTAssertEqual(receive(&ledger, #"{"id":"x"}"#), #"{"id":"x","n":4}"#)
        XCTAssertEqual(receive(&ledger, #"{"id":"x"}"#), #"{"id":"x","n":5}"#)
        XCTAssertFalse(ledger.isHeld(key: Array(#""x""#.utf8)))
        XCTAssertTrue(ledger.isHeld(key: Array(#""y""#.utf8)))
    }

    func testKeysIgnoreWhitespaceButNotSpelling() {
        var ledger = AckLedger(path: ["sequence"])
        XCTAssertEqual(send(&ledger, "{\"sequence\" :\t5 ,\"m\":1}"), "5")
        XCTAssertEqual(send(&ledger, #"{"sequence":{ "a" : 1 }}"#), #"{ "a" : 1 }"#)
        XCTAssertNil(receive(&ledger, #"{"sequence":5.0}"#))
        XCTAssertNil(receive(&ledger, #"{"sequence":"5"}"#))
        XCTAssertNil(receive(&ledger, #"{"sequence":{"a":1}}"#))      // inner spacing counts
        XCTAssertEqual(receive(&ledger, "{\"sequence\":\n 5\n}"), "{\"sequence\" :\t5 ,\"m\":1}")
        XCTAssertNotNil(receive(&ledger, #"{"sequence": { "a" : 1 } }"#))
        XCTAssertTrue(ledger.isEmpty)
    }

    func testNestedPath() {
        var ledger = AckLedger(path: ["meta", "seq"])
        XCTAssertNil(send(&ledger, #"{"seq":1}"#))
        XCTAssertEqual(send(&ledger, #"{"meta":{"seq":1}}"#), "1")
        XCTAssertNil(receive(&ledger, #"{"seq":1}"#))
        XCTAssertNotNil(receive(&ledger, #"{"meta":{"ok":true,"seq":1}}"#))
    }

    func testMessagesWithoutTheKeyAreNotHeld() {
        var ledger = AckLedger(path: ["seq"])
        XCTAssertNil(send(&ledger, #"{"type":"ping"}"#))
        XCTAssertNil(send(&ledger, #"[{"seq":1}]"#))
        XCTAssertNil(send(&ledger, "17"))
        XCTAssertEqual(ledger.count, 0)
        XCTAssertEqual(ledger.heldBytes, 0)
    }

    func testNonJSONSentTextIsNotHeld() {
        var ledger = AckLedger(path: ["seq"])
        XCTAssertNil(send(&ledger, #"{"seq":1"#))            // incomplete
        XCTAssertNil(send(&ledger, #"{"seq":1,}"#))          // trailing comma
        XCTAssertNil(send(&ledger, #"{"seq":1} {"seq":2}"#)) // two values
        XCTAssertNil(send(&ledger, "seq=1"))
        XCTAssertNil(send(&ledger, ""))
        XCTAssertNil(Array<UInt8>([0x7B, 0x22, 0x73, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
            .withUnsafeBytes { ledger.sent($0) })           // invalid UTF-8 in a string
        XCTAssertTrue(ledger.isEmpty)
        XCTAssertEqual(held(ledger), [])
    }

    func testHeldBytes() {
        var ledger = AckLedger(path: ["seq"])
        send(&ledger, #"{"seq":1}"#)                     // 9 bytes
        send(&ledger, #"{"seq":2,"data":"xyz"}"#)        // 22 bytes
        XCTAssertEqual(ledger.heldBytes, 31)
        _ = receive(&ledger, #"{"seq":1}"#)
        XCTAssertEqual(ledger.heldBytes, 22)
        _ = receive(&ledger, #"{"seq":2}"#)
        XCTAssertEqual(ledger.heldBytes, 0)
    }

    func testReceivedAckReportsTheKey() {
        var ledger = AckLedger(path: ["seq"])
        send(&ledger, #"{"seq": [1, 2]}"#)
        let released = Array(#"{"seq":[1, 2] }"#.utf8).withUnsafeBytes { ledger.receivedAck($0) }
        XCTAssertEqual(released.map { String(decoding: $0.key, as: UTF8.self) }, "[1, 2]")
        XCTAssertEqual(released.map { String(decoding: $0.message, as: UTF8.self) }, #"{"seq": [1, 2]}"#)
    }

    func testOrderAfterReleasesInTheMiddle() {
        var ledger = AckLedger(path: ["seq"])
        for n in 1 ... 6 { send(&ledger, "{\"seq\":\(n)}") }
        _ = receive(&ledger, #"{"seq":3}"#)
        _ = receive(&ledger, #"{"seq":5}"#)
        send(&ledger, #"{"seq":3}"#)
        XCTAssertEqual(keys(ledger), ["1", "2", "4", "6", "3"])
        XCTAssertEqual(held(ledger), ["1", "2", "4", "6", "3"].map { "{\"seq\":\($0)}" })
        _ = receive(&ledger, #"{"seq":1}"#)
        XCTAssertEqual(keys(ledger), ["2", "4", "6", "3"])
    }

    func testOrderSurvivesCompaction() {
        // One message never acked keeps its slot while thousands come and go,
        // so tombstones pile up behind it and must be squeezed out correctly.
        var ledger = AckLedger(path: ["seq"])
        send(&ledger, #"{"seq":"first"}"#)
        var expected = [#""first""#]
        for n in 0 ..< 5_000 {
            send(&ledger, "{\"seq\":\(n)}")
            send(&ledger, #"{"seq":"dup","n":\#(n)}"#)
            XCTAssertNotNil(receive(&ledger, "{\"seq\":\(n)}"))
            // Tombstones never outnumber the held messages by much.
            XCTAssertLessThanOrEqual(ledger.storedSlots, 2 * ledger.count + 32)
            if n % 1_000 == 999 {
                send(&ledger, "{\"seq\":\"keep\(n)\"}")
                expected.append("\"keep\(n)\"")
            }
            if n % 2 == 1 {
                XCTAssertEqual(receive(&ledger, #"{"seq":"dup"}"#), #"{"seq":"dup","n":\#((n - 1) / 2)}"#)
            }
        }
        XCTAssertEqual(ledger.count, 6 + 2_500)
        XCTAssertEqual(keys(ledger).filter { $0 != #""dup""# }, expected)
        var dupOrder: [String] = []
        while let message = receive(&ledger, #"{"seq":"dup"}"#) { dupOrder.append(message) }
        XCTAssertEqual(dupOrder, (0 ..< 2_500).map { #"{"seq":"dup","n":\#($0 + 2_500)}"# })
        XCTAssertEqual(keys(ledger), expected)
        XCTAssertEqual(held(ledger).count, 6)
        XCTAssertLessThanOrEqual(ledger.storedSlots, 2 * 6 + 32)
        for key in expected { XCTAssertNotNil(receive(&ledger, "{\"seq\":\(key)}")) }
        XCTAssertTrue(ledger.isEmpty)
        XCTAssertEqual(ledger.storedSlots, 0)
    }

    func testHeldMessagesCanBeWalkedFromASerialAndStopped() {
        var ledger = AckLedger(path: ["seq"])
        for n in 1...5 { send(&ledger, #"{"seq":\#(n)}"#) }
        XCTAssertEqual(ledger.lastSerial, 5)
        XCTAssertEqual(receive(&ledger, #"{"seq":2}"#), #"{"seq":2}"#)
        var seen: [Int] = []
        ledger.forEachHeld(from: 2) { serial, _ in seen.append(serial); return serial < 4 }
        XCTAssertEqual(seen, [3, 4])
        // Compaction keeps the serials and their order.
        for n in 6...200 { send(&ledger, #"{"seq":\#(n)}"#) }
        for n in 6...150 { receive(&ledger, #"{"seq":\#(n)}"#) }
        seen = []
        ledger.forEachHeld(from: 4) { serial, text in
            XCTAssertEqual(String(decoding: text, as: UTF8.self), #"{"seq":\#(serial)}"#)
            seen.append(serial)
            return true
        }
        XCTAssertEqual(seen, [4, 5] + Array(151...200))
        XCTAssertEqual(ledger.heldBytes, ([1, 3] + seen).reduce(0) { $0 + #"{"seq":\#($1)}"#.utf8.count })
    }
}
