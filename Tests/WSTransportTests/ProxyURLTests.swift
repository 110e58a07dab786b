import XCTest
@testable import WSTransport

final class ProxyURLTests: XCTestCase {
    func testSchemesAndDefaults() throws {
        let http = try ProxyURL(parsing: "http://proxy.example:3128")
        XCTAssertEqual(http.kind, .http)
        XCTAssertEqual(http.host, "proxy.example")
        XCTAssertEqual(http.port, 3128)
        XCTAssertNil(http.credentials)
        // Like curl: no scheme means http, no port means 1080.
        let bare = try ProxyURL(parsing: "proxy.example")
        XCTAssertEqual(bare.kind, .http)
        XCTAssertEqual(bare.port, 1080)
        XCTAssertEqual(try ProxyURL(parsing: "SOCKS5H://127.0.0.1:9050/").kind, .socks5h)
        XCTAssertEqual(try ProxyURL(parsing: "socks5://[::1]:1080").host, "::1")
        XCTAssertEqual(try ProxyURL(parsing: "socks5://[::1]:1080").description, "socks5://[::1]:1080")
    }

    /// RFC 3986 §2.1: user and password are percent-decoded; never shown.
    func testCredentials() throws {
        let p = try ProxyURL(parsing: "http://al%40ice:p%3Ass@h:1")
        XCTAssertEqual(p.user, "al@ice")
        XCTAssertEqual(p.password, "p:ss")
        XCTAssertEqual(p.description, "http://h:1")
        XCTAssertEqual(try ProxyURL(parsing: "socks5h://bob@h").credentials?.password, "")
    }

    func testRejected() {
        for (text, why) in [("https://h:1", "HTTPS proxies are not supported"), ("socks4://h", "unsupported proxy scheme"),
                            ("http://:8080", "no host"), ("http://h:0", "invalid proxy port"),
                            ("http://h:99999", "invalid proxy port"), ("http://h/path", "no path"),
                            ("http://u:%zz@h", "percent-encoding"), ("http://[::1", "unclosed")] {
            XCTAssertThrowsError(try ProxyURL(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(why), "\(text): \(error)")
            }
        }
    }
}
