import XCTest
@testable import WSCLI

final class SuggestionTests: XCTestCase {
    func testEditDistance() {
        XCTAssertEqual(Suggestion.editDistance("header", "header"), 0)
        XCTAssertEqual(Suggestion.editDistance("hedaer", "header"), 1)   // adjacent swap
        XCTAssertEqual(Suggestion.editDistance("heder", "header"), 1)    // deletion
        XCTAssertEqual(Suggestion.editDistance("headers", "header"), 1)  // insertion
        XCTAssertEqual(Suggestion.editDistance("hxader", "header"), 1)   // substitution
        XCTAssertEqual(Suggestion.editDistance("", "key"), 3)
        XCTAssertEqual(Suggestion.editDistance("key", ""), 3)
        XCTAssertEqual(Suggestion.editDistance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggestion.editDistance("ca", "abc"), 3)          // OSA, not full Damerau
    }

    func testClosestWithinTwo() {
        let names = flagTable.map(\.long)
        XCTAssertEqual(Suggestion.closest(to: "hedaer", among: names), "header")
        XCTAssertEqual(Suggestion.closest(to: "orgin", among: names), "origin")
        XCTAssertEqual(Suggestion.closest(to: "protocols", among: names), "protocol")
        XCTAssertEqual(Suggestion.closest(to: "no-clse", among: names), "no-close")
        XCTAssertEqual(Suggestion.closest(to: "lisen", among: names), "listen")
        XCTAssertEqual(Suggestion.closest(to: "binary-outptu", among: names), "binary-output")
    }

    func testPrefersTheSmallestDistance() {
        // "cer" is 1 from "cert" and 2 from "key"/"help"... the nearest wins.
        XCTAssertEqual(Suggestion.closest(to: "cer", among: ["key", "cert"]), "cert")
        // Ties go to the earlier candidate.
        XCTAssertEqual(Suggestion.closest(to: "axc", among: ["abc", "adc"]), "abc")
        XCTAssertEqual(Suggestion.closest(to: "axc", among: ["adc", "abc"]), "adc")
    }

    func testPrefixMatch() {
        let names = flagTable.map(\.long)
        XCTAssertEqual(Suggestion.closest(to: "connect", among: names), "connect-timeout")
        // A prefix beats a closer edit distance ("unidirectional" is 2 away).
        XCTAssertEqual(Suggestion.closest(to: "unidirectional-r", among: names), "unidirectional-reverse")
        XCTAssertEqual(Suggestion.closest(to: "max", among: names), "max-message-size")
    }

    func testNoSuggestionWhenNothingIsClose() {
        let names = flagTable.map(\.long)
        XCTAssertNil(Suggestion.closest(to: "frobnicate", among: names))
        XCTAssertNil(Suggestion.closest(to: "x", among: names))
        XCTAssertNil(Suggestion.closest(to: "zz", among: names))
    }
}
