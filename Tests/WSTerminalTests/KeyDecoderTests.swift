import XCTest
@testable import WSTerminal

final class KeyDecoderTests: XCTestCase {
    private func decode(_ s: String) -> [Key] {
        var d = KeyDecoder()
        return d.feed(Array(s.utf8))
    }

    /// Feeds `bytes` one byte per read: the result must not depend on how
    /// the terminal's output was cut.
    private func decodeByteByByte(_ bytes: [UInt8]) -> [Key] {
        var d = KeyDecoder()
        var keys: [Key] = []
        for b in bytes {
            for key in d.feed([b]) {
                // Text typed one byte at a time arrives as several .text keys.
                if case .text(let s) = key, case .text(let previous)? = keys.last {
                    keys[keys.count - 1] = .text(previous + s)
                } else {
                    keys.append(key)
                }
            }
        }
        return keys
    }

    func testPrintableTextIsOneKeyPerRead() {
        XCTAssertEqual(decode("héllo 世界"), [.text("héllo 世界")])
    }

    func testControlKeys() {
        XCTAssertEqual(decode("\r\n\t\u{7F}\u{08}"), [.enter, .enter, .tab, .backspace, .backspace])
        XCTAssertEqual(decode("\u{01}\u{05}\u{0B}\u{12}\u{15}\u{17}\u{03}\u{04}"),
                       [.ctrl("a"), .ctrl("e"), .ctrl("k"), .ctrl("r"), .ctrl("u"), .ctrl("w"), .ctrl("c"), .ctrl("d")])
        XCTAssertEqual(decode("a\u{00}b\u{1C}"), [.text("a"), .text("b")])
    }

    func testCursorKeysInEveryCommonSpelling() {
        // CSI (normal mode) and SS3 (application mode) arrows.
        XCTAssertEqual(decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
        XCTAssertEqual(decode("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD"), [.up, .down, .right, .left])
        // Home/End: xterm CSI H/F, SS3 H/F, VT220 1~/4~, rxvt 7~/8~.
        XCTAssertEqual(decode("\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF"), [.home, .end, .home, .end])
        XCTAssertEqual(decode("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~"), [.home, .end, .home, .end])
        XCTAssertEqual(decode("\u{1B}[3~"), [.delete])
        XCTAssertEqual(decode("\u{1B}OM"), [.enter])
    }

    func testModifiedArrowsMoveByWord() {
        // xterm: ESC [ 1 ; 5 D is Ctrl-Left, ; 3 is Alt, ; 2 is Shift (not a word motion).
        XCTAssertEqual(decode("\u{1B}[1;5D\u{1B}[1;5C\u{1B}[1;3D\u{1B}[1;2C"), [.wordLeft, .wordRight, .wordLeft, .right])
    }

    func testAltKeys() {
        XCTAssertEqual(decode("\u{1B}b\u{1B}f\u{1B}d"), [.alt("b"), .alt("f"), .alt("d")])
        XCTAssertEqual(decode("\u{1B}\u{7F}\u{1B}\r"), [.altBackspace, .altEnter])
    }

    func testUnusedSequencesAreIgnoredWhole() {
        // PageUp, F5, Insert, Shift-Tab: nothing of them may leak as text.
        XCTAssertEqual(decode("\u{1B}[5~\u{1B}[15~\u{1B}[2~\u{1B}[Zx"), [.ignored, .ignored, .ignored, .ignored, .text("x")])
        XCTAssertEqual(decode("\u{1B}OPx"), [.ignored, .text("x")])
    }

    func testSequencesSplitAcrossReads() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed(Array("a\u{1B}".utf8)), [.text("a")])
        XCTAssertTrue(d.isHoldingEscape)
        XCTAssertEqual(d.feed(Array("[".utf8)), [])
        XCTAssertEqual(d.feed(Array("1;5".utf8)), [])
        XCTAssertEqual(d.feed(Array("Cb".utf8)), [.wordRight, .text("b")])
        XCTAssertFalse(d.isHoldingEscape)
    }

    func testEveryCutGivesTheSameKeys() {
        let input = Array("x\u{1B}[A\u{1B}OH€\u{1B}[3~\u{1B}b世\u{1B}[200~p\r\nq\u{1B}[201~\u{1B}[1;5Dz".utf8)
        let whole = decode(String(decoding: input, as: UTF8.self))
        XCTAssertEqual(whole, [.text("x"), .up, .home, .text("€"), .delete, .alt("b"), .text("世"),
                               .paste("p\nq"), .wordLeft, .text("z")])
        XCTAssertEqual(decodeByteByByte(input), whole)
        for cut in 1..<input.count {
            var d = KeyDecoder()
            var keys = d.feed(input[..<cut])
            keys += d.feed(input[cut...])
            // Merge text split by the cut, as byte-by-byte does.
            var merged: [Key] = []
            for key in keys {
                if case .text(let s) = key, case .text(let p)? = merged.last { merged[merged.count - 1] = .text(p + s) }
                else { merged.append(key) }
            }
            XCTAssertEqual(merged, whole, "cut at \(cut)")
        }
    }

    func testLoneEscapeIsDeliveredOnTimeout() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed([0x1B]), [])
        XCTAssertTrue(d.isHoldingEscape)
        XCTAssertEqual(d.flushEscape(), [.escape])
        XCTAssertFalse(d.isHoldingEscape)
        XCTAssertEqual(d.flushEscape(), [])
        // ESC then "[" that never completes: Esc, then the rest as typed text.
        XCTAssertEqual(d.feed(Array("\u{1B}[".utf8)), [])
        XCTAssertEqual(d.flushEscape(), [.escape, .text("[")])
        // ESC ESC: the first is the Esc key.
        XCTAssertEqual(d.feed(Array("\u{1B}\u{1B}[A".utf8)), [.escape, .up])
    }

    func testUTF8SplitAcrossReadsStaysWhole() {
        var d = KeyDecoder()
        let bytes = Array("é😀".utf8)   // C3 A9 F0 9F 98 80
        XCTAssertEqual(d.feed(bytes[0..<1]), [])
        XCTAssertEqual(d.feed(bytes[1..<3]), [.text("é")])
        XCTAssertEqual(d.feed(bytes[3..<5]), [])
        XCTAssertEqual(d.feed(bytes[5...]), [.text("😀")])
    }

    func testInvalidUTF8BecomesReplacementCharacter() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed([0x61, 0xFF, 0x62, 0xC0, 0xAF]), [.text("a\u{FFFD}b\u{FFFD}\u{FFFD}")])
        // A sequence broken by a control byte: the lead is invalid, Enter still counts.
        XCTAssertEqual(d.feed([0xE2, 0x82, 0x0D]), [.text("\u{FFFD}\u{FFFD}"), .enter])
        // C1 controls typed as UTF-8 (U+009B is CSI on some terminals) are dropped.
        XCTAssertEqual(d.feed([0x61, 0xC2, 0x9B, 0x62]), [.text("ab")])
    }

    func testBracketedPasteIsOneKeyWithLineBreaksKept() {
        let pasted = "\u{1B}[200~{\r\n  \"a\": 1,\r  \"b\": \"\u{1B}[A\"\n}\u{1B}[201~"
        XCTAssertEqual(decode(pasted), [.paste("{\n  \"a\": 1,\n  \"b\": \"\u{1B}[A\"\n}")])
        XCTAssertEqual(decode("\u{1B}[200~\u{1B}[201~"), [.paste("")])
    }

    func testPasteSpanningReadsWithTheEndMarkerSplit() {
        var d = KeyDecoder()
        XCTAssertEqual(d.feed(Array("\u{1B}[200~line one\r".utf8)), [])
        XCTAssertFalse(d.isHoldingEscape)
        XCTAssertEqual(d.feed(Array("\nline two\u{1B}[2".utf8)), [])
        XCTAssertFalse(d.isHoldingEscape, "an ESC inside a paste needs no timeout")
        XCTAssertEqual(d.feed(Array("01~\r".utf8)), [.paste("line one\nline two"), .enter])
    }
}
