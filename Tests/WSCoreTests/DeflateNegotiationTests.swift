import XCTest
@testable import WSCore

/// permessage-deflate negotiation (RFC 7692 §5, §7.1).
final class DeflateNegotiationTests: XCTestCase {
    private func clientCheck(_ value: String) -> Result<DeflateParameters?, DeflateNegotiation.Refusal> {
        DeflateNegotiation.acceptedByServer(ExtensionElement.parseList([value]) ?? [])
    }

    func testOffer() {
        XCTAssertEqual(DeflateNegotiation.clientOffer, "permessage-deflate; client_max_window_bits")
    }

    func testResponsesTheClientAccepts() throws {
        XCTAssertEqual(try clientCheck("permessage-deflate").get(), DeflateParameters())
        XCTAssertEqual(try clientCheck("permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                                       + "server_max_window_bits=10; client_max_window_bits=\"8\"").get(),
                       DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true,
                                         serverMaxWindowBits: 10, clientMaxWindowBits: 8))
        XCTAssertEqual(try clientCheck("other-extension").get(), nil, "declined: no permessage-deflate")
    }

    func testResponsesThatFailTheHandshake() {
        let bad = [
            "permessage-deflate; unknown",                                     // not defined for a response
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",   // twice
            "permessage-deflate; server_max_window_bits=16",                   // out of range
            "permessage-deflate; server_max_window_bits=7",
            "permessage-deflate; client_max_window_bits=08",                   // leading zero
            "permessage-deflate; server_max_window_bits",                      // value required
            "permessage-deflate; client_max_window_bits",                      // value required in a response
            "permessage-deflate; server_no_context_takeover=1",                // no value allowed
            "permessage-deflate, permessage-deflate",                          // accepted twice
        ]
        for value in bad {
            guard case .failure = clientCheck(value) else { return XCTFail("accepted: \(value)") }
        }
    }

    func testServerTakesTheFirstAcceptableOffer() {
        let choice = DeflateNegotiation.serverChoice(offers: [
            "x-other, permessage-deflate; server_max_window_bits=20, permessage-deflate; bogus",
            "permessage-deflate; client_max_window_bits; server_max_window_bits=10; client_no_context_takeover",
            "permessage-deflate",
        ])
        XCTAssertEqual(choice, DeflateParameters(clientNoContextTakeover: true, serverMaxWindowBits: 10))
        XCTAssertEqual(choice?.headerValue, "permessage-deflate; client_no_context_takeover; server_max_window_bits=10")
    }

    func testServerRepeatsNoContextTakeoverAndLeavesClientWindowOut() {
        let choice = DeflateNegotiation.serverChoice(offers: [
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=9",
        ])
        XCTAssertEqual(choice?.headerValue, "permessage-deflate; server_no_context_takeover")
    }

    func testServerDeclines() {
        XCTAssertNil(DeflateNegotiation.serverChoice(offers: []))
        XCTAssertNil(DeflateNegotiation.serverChoice(offers: ["x-webkit-deflate-frame"]))
        XCTAssertNil(DeflateNegotiation.serverChoice(offers: ["permessage-deflate; client_max_window_bits=16"]))
        XCTAssertNil(DeflateNegotiation.serverChoice(offers: ["permessage-deflate; server_max_window_bits"]))
        XCTAssertNil(DeflateNegotiation.serverChoice(offers: ["permessage-deflate; a=\"unclosed"]))
    }

    func testWindowBitsGrammar() {
        XCTAssertEqual((8...15).map { DeflateNegotiation.windowBits(String($0)) }, Array(8...15))
        for bad in ["", "0", "08", "7", "16", "+9", "9 ", "1_0", "٩"] {
            XCTAssertNil(DeflateNegotiation.windowBits(bad), bad)
        }
    }

    func testEachRoleUsesItsOwnHalf() {
        let p = DeflateParameters(serverNoContextTakeover: true, serverMaxWindowBits: 8, clientMaxWindowBits: 12)
        XCTAssertTrue(p.sendsWithoutContextTakeover(.server))
        XCTAssertFalse(p.sendsWithoutContextTakeover(.client))
        XCTAssertTrue(p.receivesWithoutContextTakeover(.client))
        XCTAssertEqual(p.sendWindowBits(.server), 9, "zlib cannot deflate with 8: 9 keeps distances within 256")
        XCTAssertEqual(p.sendWindowBits(.client), 12)
        XCTAssertEqual(DeflateParameters().sendWindowBits(.client), 15)
    }
}
