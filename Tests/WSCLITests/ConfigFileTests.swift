import Foundation
import XCTest
@testable import WSCLI

/// curl's config syntax (curl(1), -K) with wspipe's [NAME] sections
/// (wspipe(1): CONFIG FILES).
final class ConfigFileTests: XCTestCase {
    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigFile? {
        do {
            return try ConfigFile(path: "cfg", text: text)
        } catch {
            XCTFail("unexpected error: \(error.message)", file: file, line: line)
            return nil
        }
    }

    private func assertError(_ text: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try ConfigFile(path: "cfg", text: text)
            XCTFail("expected '\(message)'", file: file, line: line)
        } catch {
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    private func pairs(_ lines: [ConfigFile.Line]) -> [String] {
        lines.map { "\($0.flag.long)=\($0.value)@\($0.number)" }
    }

    func testTheFormsCurlReads() throws {
        let file = try XCTUnwrap(parse("""
            # a comment
              # an indented one

            --header "X-A: 1"
            header = "X-B: 2"
            header: "X-C: 3"
            header="X-D: 4"
            -H "X-E: 5"
            origin https://o.example
            backoff=500ms   # after a blank, a comment
            verbose
            -v
            --compress
            user-agent ""
            --close-code=4000:bye
            """))
        XCTAssertEqual(pairs(file.topLevel), [
            "header=X-A: 1@4", "header=X-B: 2@5", "header=X-C: 3@6", "header=X-D: 4@7", "header=X-E: 5@8",
            "origin=https://o.example@9", "backoff=500ms@10", "verbose=@11", "verbose=@12", "compress=@13",
            "user-agent=@14", "close-code=4000:bye@15",
        ])
        XCTAssertTrue(file.sections.isEmpty)
    }

    func testQuotedEscapes() throws {
        let file = try XCTUnwrap(parse(#"user-agent "a\"b\\c\td\ne\rf\vg\qh""#))
        XCTAssertEqual(file.topLevel.first?.value, "a\"b\\c\td\ne\rf\u{0B}gqh")
    }

    func testCRLFLines() throws {
        let file = try XCTUnwrap(parse("origin x\r\n[a]\r\nurl = ws://h/\r\n-v\r\n"))
        XCTAssertEqual(pairs(file.topLevel), ["origin=x@1"])
        XCTAssertEqual(file.sections.first?.urls, ["ws://h/"])
        XCTAssertEqual(pairs(file.sections.first?.lines ?? []), ["verbose=@4"])
    }

    func testSections() throws {
        let file = try XCTUnwrap(parse("""
            backoff 1s
            [staging]
            url = wss://staging.example.com/
            url = wss://staging-2.example.com
            origin https://staging.example.com
              [prod.eu-1_a]  
            url wss://prod.example.com/v1
            -H "Authorization: Bearer x"
            """))
        XCTAssertEqual(pairs(file.topLevel), ["backoff=1s@1"])
        XCTAssertEqual(file.sections.map(\.name), ["staging", "prod.eu-1_a"])
        XCTAssertEqual(file.sections[0].urls, ["wss://staging.example.com/", "wss://staging-2.example.com"])
        XCTAssertEqual(pairs(file.sections[0].lines), ["origin=https://staging.example.com@5"])
        XCTAssertEqual(file.sections[1].urls, ["wss://prod.example.com/v1"])
        XCTAssertEqual(file.sections[1].number, 6)
        XCTAssertEqual(file.secretLines().map(\.number), [8])
    }

    func testMistakesNameTheLine() {
        assertError("\n--zzzzzz 1", "cfg:2: unknown option '--zzzzzz'")
        assertError("this is not an option", "cfg:1: unknown option 'this'")
        assertError("headr x", "cfg:1: unknown option 'headr' (did you mean 'header'?)")
        assertError("origin", "cfg:1: missing value for --origin")
        assertError("compress yes", "cfg:1: --compress does not take a value")
        assertError("header X-A: 1", "cfg:1: text after the value of header: quote a value that has spaces (header = \"...\")")
        assertError("-H X-A: 1", "cfg:1: text after the value of -H: quote a value that has spaces (-H \"...\")")
        assertError("header \"X-A: 1", "cfg:1: the quoted value of header has no closing quote")
        assertError("header \"X: 1\" more", "cfg:1: text after the value of header: quote a value that has spaces (header = \"...\")")
        assertError("url = ws://x/", "cfg:1: url belongs in a [NAME] section: it says which URLs select the section")
        assertError("[a]\nurl = http://x/", "cfg:2: url: expected a ws:// or wss:// URL prefix, got 'http://x/'")
        assertError("[a]\nurl", "cfg:2: missing value for url")
        assertError("[a b]", "cfg:1: expected [NAME] (letters, digits, '.', '_' and '-')")
        assertError("[]", "cfg:1: expected [NAME] (letters, digits, '.', '_' and '-')")
        assertError("[a] x", "cfg:1: expected [NAME] (letters, digits, '.', '_' and '-')")
        for refused in ["config x", "-K x", "no-config", "profile p", "help", "version", "generate man"] {
            let long = refused.hasPrefix("-K") ? "config" : String(refused.prefix { $0 != " " })
            assertError(refused, "cfg:1: --\(long) cannot be given in a config file")
        }
    }

    /// A header, a password or cookie data makes a file secret; a file name does not.
    func testSecretLines() throws {
        let plain = try XCTUnwrap(parse("header-file h\ncookie jar.txt\nuser-file u\nproxy http://p:3128\norigin o"))
        XCTAssertTrue(plain.secretLines().isEmpty)
        for secret in ["-H \"X: 1\"", "user a:b", "proxy-user a:b", "cookie sid=1", "proxy http://a:b@p:3128",
                       "[s]\nheader \"Authorization: x\""] {
            XCTAssertFalse(try XCTUnwrap(parse(secret)).secretLines().isEmpty, secret)
        }
    }

    func testURLPrefixesMatchAtABoundary() {
        let prefix = "wss://example.com"
        XCTAssertTrue(URLPrefix.matches(prefix, "wss://example.com"))
        XCTAssertTrue(URLPrefix.matches(prefix, "wss://example.com/ws"))
        XCTAssertTrue(URLPrefix.matches(prefix, "wss://example.com?x=1"))
        XCTAssertTrue(URLPrefix.matches(prefix, "WSS://Example.COM/ws"))
        XCTAssertFalse(URLPrefix.matches(prefix, "wss://example.com.evil.net/ws"))
        XCTAssertFalse(URLPrefix.matches(prefix, "wss://example.com:8443/ws"))
        XCTAssertFalse(URLPrefix.matches(prefix, "ws://example.com/ws"))
        XCTAssertTrue(URLPrefix.matches("wss://example.com/api", "wss://example.com/api/v1"))
        XCTAssertFalse(URLPrefix.matches("wss://example.com/api", "wss://example.com/apikeys"))
        XCTAssertFalse(URLPrefix.matches("wss://example.com/API", "wss://example.com/api"), "paths keep their case")
        XCTAssertTrue(URLPrefix.matches("wss://example.com/api/", "wss://example.com/api/x"))
    }
}
