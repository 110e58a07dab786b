import XCTest
import WSBridge
import WSTransport
@testable import WSCLI
@testable import WSConnect

/// Which route a client takes: flags first, then the environment as curl reads it.
final class ProxySelectionTests: XCTestCase {
    private func route(_ url: String, _ options: Options = Options(), env: [String: String] = [:]) throws -> DialRoute {
        try ProxySelection.route(for: try WebSocketURL(parsing: url), options, environment: { env[$0] })
    }

    private func proxy(_ text: String) throws -> DialRoute { .proxy(try ProxyURL(parsing: text)) }

    func testNoProxyAnywhereIsDirect() throws {
        XCTAssertEqual(try route("ws://h/"), .direct)
    }

    func testSchemeChoosesTheVariable() throws {
        let env = ["http_proxy": "http://plain:1", "https_proxy": "http://secure:2"]
        XCTAssertEqual(try route("ws://h/", env: env), try proxy("http://plain:1"))
        XCTAssertEqual(try route("wss://h/", env: env), try proxy("http://secure:2"))
    }

    /// HTTP_PROXY is ignored (a CGI request can set it); the others have an upper-case form.
    func testUpperCaseForms() throws {
        XCTAssertEqual(try route("ws://h/", env: ["HTTP_PROXY": "http://x:1"]), .direct)
        XCTAssertEqual(try route("wss://h/", env: ["HTTPS_PROXY": "http://x:1"]), try proxy("http://x:1"))
        XCTAssertEqual(try route("ws://h/", env: ["ALL_PROXY": "socks5h://x:1"]), try proxy("socks5h://x:1"))
        XCTAssertEqual(try route("wss://h/", env: ["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1"]),
                       try proxy("http://lower:1"))
    }

    func testAllProxyIsTheFallback() throws {
        let env = ["all_proxy": "socks5://all:1", "https_proxy": "http://secure:2"]
        XCTAssertEqual(try route("ws://h/", env: env), try proxy("socks5://all:1"))
        XCTAssertEqual(try route("wss://h/", env: env), try proxy("http://secure:2"))
        XCTAssertEqual(try route("ws://h/", env: ["http_proxy": "", "all_proxy": "socks5://all:1"]), try proxy("socks5://all:1"))
    }

    func testFlagBeatsTheEnvironment() throws {
        var o = Options()
        o.proxy = "socks5h://flag:1"
        XCTAssertEqual(try route("ws://h/", o, env: ["http_proxy": "http://env:1"]), try proxy("socks5h://flag:1"))
        o.proxy = ""
        XCTAssertEqual(try route("ws://h/", o, env: ["http_proxy": "http://env:1"]), .direct)
    }

    func testUnixSocketBeatsEveryProxy() throws {
        var o = Options()
        o.unixSocket = "/run/app.sock"
        o.proxy = "http://p:1"
        XCTAssertEqual(try route("ws://h/", o, env: ["all_proxy": "http://env:1"]), .unixSocket("/run/app.sock"))
    }

    func testNoProxyList() throws {
        let env = ["all_proxy": "http://p:1", "no_proxy": "localhost, .internal.example,10.0.0.1,[::1]"]
        XCTAssertEqual(try route("ws://localhost/", env: env), .direct)
        XCTAssertEqual(try route("ws://api.internal.example/", env: env), .direct)
        XCTAssertEqual(try route("ws://internal.example/", env: env), .direct)
        XCTAssertEqual(try route("ws://10.0.0.1:9/", env: env), .direct)
        XCTAssertEqual(try route("ws://[::1]:9/", env: env), .direct)
        XCTAssertEqual(try route("ws://notinternal.example/", env: env), try proxy("http://p:1"))
        XCTAssertEqual(try route("ws://10.0.0.10/", env: env), try proxy("http://p:1"))
        XCTAssertEqual(try route("ws://h/", env: ["all_proxy": "http://p:1", "NO_PROXY": "*"]), .direct)
    }

    func testNoproxyFlagReplacesTheVariable() throws {
        var o = Options()
        o.noProxy = "other"
        let env = ["all_proxy": "http://p:1", "no_proxy": "h"]
        XCTAssertEqual(try route("ws://h/", o, env: env), try proxy("http://p:1"))
        XCTAssertEqual(try route("ws://other/", o, env: env), .direct)
        o.noProxy = "*"
        XCTAssertEqual(try route("ws://h/", o, env: env), .direct)
    }

    func testBadVariableIsNamedInTheError() {
        XCTAssertThrowsError(try route("wss://h/", env: ["https_proxy": "ftp://p:1"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("https_proxy: unsupported proxy scheme 'ftp'"), "\(error)")
        }
    }
}
