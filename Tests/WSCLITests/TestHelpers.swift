import XCTest
@testable import WSCLI

/// Parses `args`, failing the test (and returning defaults) on a usage error.
func parseOK(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> Options {
    do {
        return try ArgumentParser.parse(args)
    } catch {
        XCTFail("unexpected usage error: \(error.message)", file: file, line: line)
        return Options()
    }
}

/// Asserts that parsing `args` fails with exactly `message`.
func assertUsageError(_ args: [String], _ message: String,
                      file: StaticString = #filePath, line: UInt = #line) {
    do {
        let options = try ArgumentParser.parse(args)
        XCTFail("expected usage error '\(message)', parsed \(options)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.message, message, "args: \(args)", file: file, line: line)
    }
}

/// A valid client URL to complete command lines that test something else.
let url = "ws://example.com/chat"
