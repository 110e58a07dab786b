import XCTest
import WSCore
@testable import WSConnect

/// -L's decisions (wspipe(1): --location): where a Location leads, and when
/// a redirect is not followed.
final class RedirectTests: XCTestCase {
    private func url(_ text: String) -> WebSocketURL { try! WebSocketURL(parsing: text) }
    private let base = try! WebSocketURL(parsing: "wss://api.example.com:8443/v1/stream?x=1")

    private func resolved(_ location: String, _ base: WebSocketURL? = nil) -> String? {
        try? Redirect.resolve(location, against: base ?? self.base).get().display
    }

    func testAbsoluteLocationsWithHTTPSchemesReadAsWebSocket() {
        XCTAssertEqual(resolved("https://other.example/ws"), "wss://other.example/ws")
        XCTAssertEqual(resolved("http://other.example:81/ws"), "ws://other.example:81/ws")
        XCTAssertEqual(resolved("WS://Other.example/ws"), "ws://Other.example/ws")
        XCTAssertEqual(resolved("wss://other.example/ws#fragment"), "wss://other.example/ws")
        XCTAssertEqual(resolved("  wss://other.example/ws  "), "wss://other.example/ws")
    }

    func testRelativeLocationsResolveAgainstTheURLThatAnswered() {
        XCTAssertEqual(resolved("//cdn.example/ws"), "wss://cdn.example/ws")
        XCTAssertEqual(resolved("/v2/stream"), "wss://api.example.com:8443/v2/stream")
        XCTAssertEqual(resolved("next"), "wss://api.example.com:8443/v1/next")
        XCTAssertEqual(resolved("../v2/s?y=2"), "wss://api.example.com:8443/v2/s?y=2")
        XCTAssertEqual(resolved("./a/./b/../c"), "wss://api.example.com:8443/v1/a/c")
        XCTAssertEqual(resolved("?y=2"), "wss://api.example.com:8443/v1/stream?y=2")
        XCTAssertEqual(resolved("../../../../top"), "wss://api.example.com:8443/top")
    }

    func testRemovingDotSegments() {
        // RFC 3986 §5.2.4's examples.
        XCTAssertEqual(Redirect.removingDotSegments("/a/b/c/./../../g"), "/a/g")
        XCTAssertEqual(Redirect.removingDotSegments("/a/b/.."), "/a/")
        XCTAssertEqual(Redirect.removingDotSegments("/."), "/")
        XCTAssertEqual(Redirect.removingDotSegments("/"), "/")
    }

    func testLocationsThatLeadNowhereUsable() {
        XCTAssertNil(resolved("ftp://files.example/x"))
        XCTAssertNil(resolved("mailto:someone@example.com"))
        XCTAssertNil(resolved("https://"))
        XCTAssertNil(resolved("/a\u{7}b"))
    }

    private func decide(_ location: String?, status: Int = 302, from: WebSocketURL? = nil, after: Int = 0,
                        max: Int = 10, downgrade: Bool = false) -> Redirect.Decision {
        var options = RedirectOptions()
        options.follow = true
        options.maxRedirects = max
        options.allowDowngrade = downgrade
        return Redirect.decide(status: status, location: location, from: from ?? base, redirectsSoFar: after,
                               options: options)
    }

    func testFollowedUpToTheLimit() {
        XCTAssertEqual(decide("/a", after: 9), .follow(url("wss://api.example.com:8443/a")))
        guard case .refuse(let why) = decide("/a", after: 10) else { return XCTFail("followed an 11th") }
        XCTAssertTrue(why.contains("stopped after 10 redirect(s) (--max-redirs)"), why)
        guard case .refuse = decide("/a", after: 0, max: 0) else { return XCTFail("--max-redirs 0 followed one") }
    }

    func testWithoutLocationNotFollowed() {
        guard case .refuse(let why) = decide(nil) else { return XCTFail() }
        XCTAssertEqual(why, "the server answered 302 without a Location header")
        guard case .refuse = decide("") else { return XCTFail() }
    }

    func testADowngradeFromTLSNeedsTheFlag() {
        guard case .refuse(let why) = decide("ws://api.example.com/plain") else { return XCTFail() }
        XCTAssertTrue(why.contains("leaves TLS (--location-downgrade allows it)"), why)
        XCTAssertEqual(decide("ws://api.example.com/plain", downgrade: true), .follow(url("ws://api.example.com/plain")))
        // Up is always fine.
        XCTAssertEqual(decide("wss://a.example/", from: url("ws://a.example/")), .follow(url("wss://a.example/")))
    }

    func testSameOriginIsSchemeHostAndPort() {
        XCTAssertTrue(Redirect.sameOrigin(url("ws://A.example/x"), url("ws://a.example:80/y")))
        XCTAssertFalse(Redirect.sameOrigin(url("ws://a.example/"), url("wss://a.example/")))
        XCTAssertFalse(Redirect.sameOrigin(url("ws://a.example/"), url("ws://a.example:8080/")))
        XCTAssertFalse(Redirect.sameOrigin(url("ws://a.example/"), url("ws://b.example/")))
    }

    func testTheUserInformationOfTheBaseGoesWithARelativeLocation() {
        let withUser = url("ws://ann:pw@a.example/x/y")
        XCTAssertEqual(try Redirect.resolve("z", against: withUser).get().userInfo, "ann:pw")
        XCTAssertNil(try Redirect.resolve("ws://b.example/", against: withUser).get().userInfo)
    }
}

/// Which headers each request of a redirect chain carries.
final class RequestHeadersTests: XCTestCase {
    private func url(_ text: String) -> WebSocketURL { try! WebSocketURL(parsing: text) }

    private let rules = RequestHeaders(
        given: [(name: "Authorization", value: "Bearer t"), (name: "X-Keep", value: "1"),
                (name: "cookie", value: "given=1"), (name: "Host", value: "front.example")],
        original: try! WebSocketURL(parsing: "wss://a.example/ws"), basicAuth: nil, cookieData: "data=2")

    private func render(_ headers: [(name: String, value: String)]) -> [String] {
        headers.map { "\($0.name): \($0.value)" }
    }

    func testTheURLGivenGetsEverything() {
        XCTAssertEqual(render(rules.headers(for: url("wss://a.example/other"), jarCookies: "jar=3")),
                       ["Authorization: Bearer t", "X-Keep: 1", "cookie: given=1; data=2; jar=3", "Host: front.example"])
    }

    func testAnotherOriginGetsNoCredentials() {
        for other in ["wss://b.example/ws", "ws://a.example/ws", "wss://a.example:444/ws"] {
            XCTAssertEqual(render(rules.headers(for: url(other), jarCookies: nil)), ["X-Keep: 1"], other)
            XCTAssertEqual(render(rules.headers(for: url(other), jarCookies: "jar=3")), ["X-Keep: 1", "Cookie: jar=3"], other)
        }
    }

    func testBasicAuthorizationFromUserOrTheURL() {
        var user = RequestHeaders(given: [], original: url("ws://ann:pw@a.example/"), basicAuth: nil, cookieData: nil)
        XCTAssertEqual(render(user.headers(for: url("ws://ann:pw@a.example/"), jarCookies: nil)),
                       ["Authorization: Basic YW5uOnB3"])
        user.basicAuth = "bob:x"
        XCTAssertEqual(render(user.headers(for: url("ws://ann:pw@a.example/"), jarCookies: nil)),
                       ["Authorization: Basic Ym9iOng="], "--user replaces the URL's")
        XCTAssertEqual(render(user.headers(for: url("ws://b.example/"), jarCookies: nil)), [])
        XCTAssertEqual(render(user.headers(for: url("ws://cy:z@b.example/"), jarCookies: nil)),
                       ["Authorization: Basic Y3k6eg=="], "a redirect's own user information")
        XCTAssertEqual(render(user.headers(for: url("ws://u%40x:p%3Aw%zz%4@b.example/"), jarCookies: nil)),
                       ["Authorization: Basic " + Base64.encode(Array("u@x:p:w%zz%4".utf8))],
                       "the URL's user information percent-decoded, as curl does")
        user.given = [(name: "authorization", value: "Bearer t")]
        XCTAssertEqual(render(user.headers(for: url("ws://a.example/"), jarCookies: nil)), ["authorization: Bearer t"])
    }
}
