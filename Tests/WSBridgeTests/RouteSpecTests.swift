import XCTest
@testable import WSBridge

/// `--route VALUE=DEST` parsing (wspipe(1): ROUTING): every VALUE and DEST form, and the errors.
final class RouteSpecTests: XCTestCase {
    private func route(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> RouteSpec? {
        switch RouteSpec.parse(text) {
        case .success(let spec): return spec
        case .failure(let error):
            XCTFail("'\(text)' failed: \(error)", file: file, line: line)
            return nil
        }
    }

    private func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        switch RouteSpec.parse(text) {
        case .success(let spec):
            XCTFail("'\(text)' parsed as \(spec)", file: file, line: line)
            return nil
        case .failure(let error): return error.message
        }
    }

    private func destination(_ text: String) -> Result<DestinationSpec, RouteSpecError> {
        DestinationSpec.parse(text)
    }

    // MARK: VALUE

    func testTypeValue() {
        XCTAssertEqual(route("chat=stdout"), RouteSpec(match: .type("chat"), destination: .stdout))
        XCTAssertEqual(route("a.b c=stdout")?.match, .type("a.b c"))
        XCTAssertEqual(route("café=drop")?.match, .type("café"))
    }

    func testSpecialValues() {
        XCTAssertEqual(route("$binary=drop")?.match, .binary)
        XCTAssertEqual(route("$text=drop")?.match, .text)
        XCTAssertEqual(route("$event=drop")?.match, .event)
        XCTAssertEqual(route("*=drop")?.match, .fallback)
    }

    func testOtherDollarValuesAreTypes() {
        XCTAssertEqual(route("$binaryx=drop")?.match, .type("$binaryx"))
        XCTAssertEqual(route("$=drop")?.match, .type("$"))
        XCTAssertEqual(route("**=drop")?.match, .type("**"))
    }

    func testSplitsAtFirstEquals() {
        XCTAssertEqual(route("a=/tmp/x=y"), RouteSpec(match: .type("a"), destination: .file("/tmp/x=y")))
        XCTAssertEqual(route("a=|grep -c x=1"), RouteSpec(match: .type("a"), destination: .command("grep -c x=1")))
    }

    func testMissingEqualsFails() {
        XCTAssertEqual(error("chat"), "expected VALUE=DEST, got 'chat'")
        XCTAssertEqual(error(""), "expected VALUE=DEST, got ''")
    }

    func testEmptyValueFails() {
        XCTAssertEqual(error("=stdout"), "missing message type before '=' in '=stdout'")
    }

    func testDestinationErrorsPassThrough() {
        XCTAssertEqual(error("chat="), "empty destination (use stdout, stderr, drop, fd:N, a file or |COMMAND)")
        XCTAssertEqual(error("chat=fd:x"), "invalid file descriptor 'x' in 'fd:x' (expected fd:N, e.g. fd:3)")
        XCTAssertEqual(error("chat=|"), "missing command after '|' in '|'")
    }

    func testDescriptionRoundTrips() {
        for text in ["chat=stdout", "$binary=stderr", "$text=drop", "$event=fd:3", "*=/var/log/x.log", "a=|jq -c ."] {
            XCTAssertEqual(route(text)?.description, text)
        }
    }

    // MARK: DEST

    func testNamedDestinations() {
        XCTAssertEqual(try destination("stdout").get(), .stdout)
        XCTAssertEqual(try destination("stderr").get(), .stderr)
        XCTAssertEqual(try destination("drop").get(), .drop)
    }

    func testFileDescriptor() {
        XCTAssertEqual(try destination("fd:3").get(), .fd(3))
        XCTAssertEqual(try destination("fd:0").get(), .fd(0))
        XCTAssertEqual(try destination("fd:2147483647").get(), .fd(Int32.max))
        XCTAssertEqual(try destination("fd:007").get(), .fd(7))
    }

    func testBadFileDescriptors() {
        for bad in ["fd:", "fd:x", "fd:-1", "fd:+3", "fd: 3", "fd:3 ", "fd:2147483648", "fd:3x"] {
            guard case .failure(let error) = destination(bad) else {
                XCTFail("'\(bad)' accepted")
                continue
            }
            XCTAssertTrue(error.message.hasPrefix("invalid file descriptor '"), error.message)
            XCTAssertTrue(error.message.contains("in '\(bad)'"), error.message)
        }
    }

    func testCommand() {
        XCTAssertEqual(try destination("|jq -c .").get(), .command("jq -c ."))
        XCTAssertEqual(try destination("| cat").get(), .command(" cat"))
        XCTAssertEqual(try destination("||x").get(), .command("|x"))
    }

    func testEmptyCommandFails() {
        for bad in ["|", "| ", "|\t  "] {
            XCTAssertEqual(destination(bad), .failure(RouteSpecError("missing command after '|' in '\(bad)'")))
        }
    }

    func testEverythingElseIsAFile() {
        XCTAssertEqual(try destination("/tmp/x.log").get(), .file("/tmp/x.log"))
        XCTAssertEqual(try destination("log.jsonl").get(), .file("log.jsonl"))
        XCTAssertEqual(try destination("Stdout").get(), .file("Stdout"))
        XCTAssertEqual(try destination("fd3").get(), .file("fd3"))
        XCTAssertEqual(try destination(" |x").get(), .file(" |x"))
    }

    func testEmptyDestinationFails() {
        XCTAssertEqual(destination(""),
                       .failure(RouteSpecError("empty destination (use stdout, stderr, drop, fd:N, a file or |COMMAND)")))
    }

    func testErrorDescriptionIsTheMessage() {
        XCTAssertEqual(RouteSpecError("x y").description, "x y")
    }
}
