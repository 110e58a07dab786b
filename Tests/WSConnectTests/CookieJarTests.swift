import XCTest
@testable import WSConnect

/// The cookie engine (wspipe(1): --cookie, --cookie-jar): RFC 6265's
/// reading of Set-Cookie, curl's cookie files, and which cookies a request gets.
final class CookieJarTests: XCTestCase {
    private func url(_ text: String) -> WebSocketURL { try! WebSocketURL(parsing: text) }
    private let now: Int64 = 1_800_000_000

    private func parse(_ header: String, _ target: String = "wss://www.example.com/app/live") -> Cookie? {
        let u = url(target)
        return SetCookie.parse(header, host: u.host, path: u.target, secure: u.secure, now: now)
    }

    func testANameAndValueWithDefaults() throws {
        let cookie = try XCTUnwrap(parse("sid = abc123 "))
        XCTAssertEqual(cookie.name, "sid")
        XCTAssertEqual(cookie.value, "abc123")
        XCTAssertEqual(cookie.domain, "www.example.com")
        XCTAssertTrue(cookie.hostOnly)
        XCTAssertEqual(cookie.path, "/app", "the directory of the request's path")
        XCTAssertNil(cookie.expires)
        XCTAssertNil(parse("novalue"))
        XCTAssertNil(parse("=value"))
        // A control character would break the TAB-separated cookie file (curl refuses them too).
        XCTAssertNil(parse("tab=b\tc"), "a TAB inside the value")
        XCTAssertNil(parse("p=1; Path=/\tx"), "a TAB inside the path")
        XCTAssertNil(parse("c=a\u{1}b"))
        XCTAssertNil(parse("d=a\u{7F}"))
        XCTAssertEqual(parse("sp=x y")?.value, "x y", "a space inside is kept")
    }

    func testAttributes() throws {
        let cookie = try XCTUnwrap(parse("a=b; Domain=.Example.com; Path=/; Secure; HttpOnly; Max-Age=60; SameSite=Lax"))
        XCTAssertEqual(cookie.domain, "example.com")
        XCTAssertFalse(cookie.hostOnly)
        XCTAssertEqual(cookie.path, "/")
        XCTAssertTrue(cookie.secure)
        XCTAssertTrue(cookie.httpOnly)
        XCTAssertEqual(cookie.expires, now + 60)
        // Max-Age wins over Expires; an Expires date is read leniently.
        XCTAssertEqual(parse("a=b; Expires=Thu, 01 Jan 2026 00:00:00 GMT; Max-Age=5")?.expires, now + 5)
        XCTAssertEqual(parse("a=b; Expires=Thu, 01 Jan 2026 00:00:00 GMT")?.expires, 1_767_225_600)
        XCTAssertEqual(parse("a=b; Max-Age=0")?.expires, 0)
    }

    func testDomainsTheRequestIsNotInAreRefused() {
        XCTAssertNil(parse("a=b; Domain=other.example"))
        XCTAssertNil(parse("a=b; Domain=com"), "a top-level domain")
        XCTAssertNil(parse("a=b; Domain=ww.example.com"))
        XCTAssertEqual(parse("a=b; Domain=localhost", "ws://localhost/")?.hostOnly, true)
        XCTAssertEqual(parse("a=b; Domain=127.0.0.1", "ws://127.0.0.1/")?.hostOnly, true)
        XCTAssertNil(parse("a=b; Secure", "ws://www.example.com/"), "Secure over a plain connection")
    }

    /// RFC 6265 §5.3 step 5 with the Public Suffix List: `Domain=co.uk` or
    /// `Domain=github.io` was kept, and sent to every site under it.
    func testADomainThatIsAPublicSuffixIsRefused() throws {
        XCTAssertNil(parse("a=b; Domain=co.uk", "wss://shop.example.co.uk/"))
        XCTAssertNil(parse("a=b; Domain=.github.io", "wss://someone.github.io/"))
        XCTAssertNil(parse("a=b; Domain=ward.kawasaki.jp", "wss://x.ward.kawasaki.jp/"), "*.kawasaki.jp")
        XCTAssertNotNil(parse("a=b; Domain=city.kawasaki.jp", "wss://x.city.kawasaki.jp/"), "!city.kawasaki.jp")
        XCTAssertEqual(parse("a=b; Domain=example.co.uk", "wss://shop.example.co.uk/")?.domain, "example.co.uk")
        XCTAssertEqual(parse("a=b; Domain=someone.github.io", "wss://someone.github.io/")?.hostOnly, false)
        // The host itself may be a public suffix: its cookie stays its own.
        let own = try XCTUnwrap(parse("a=b; Domain=github.io", "wss://github.io/"))
        XCTAssertEqual(own.domain, "github.io")
        XCTAssertTrue(own.hostOnly)
        // The last Domain attribute decides (§5.2.3).
        XCTAssertEqual(parse("a=b; Domain=example.co.uk; Domain=co.uk", "wss://shop.example.co.uk/")?.domain, nil)
        let jar = CookieJar(savePath: nil)
        jar.receive([("Set-Cookie", "sid=1; Domain=co.uk")], from: url("wss://a.co.uk/"), now: now)
        XCTAssertNil(jar.header(for: url("wss://b.co.uk/"), now: now))
    }

    func testThePublicSuffixRules() {
        for suffix in ["com", "uk", "co.uk", "github.io", "foo.ck", "ward.kawasaki.jp", "xn--55qx5d.cn",
                       "s3.amazonaws.com", "localhost"] {
            XCTAssertTrue(PublicSuffix.isPublicSuffix(suffix), suffix)
        }
        for domain in ["example.com", "example.co.uk", "www.ck", "kawasaki.jp", "city.kawasaki.jp", "someone.github.io",
                       "a.b.city.kawasaki.jp", "example.xn--55qx5d.cn"] {
            XCTAssertFalse(PublicSuffix.isPublicSuffix(domain), domain)
        }
        XCTAssertTrue(PublicSuffix.listDate.hasPrefix("20"), PublicSuffix.listDate)
    }

    func testCookieDates() {
        XCTAssertEqual(CookieDate.parse("Wed, 21 Oct 2015 07:28:00 GMT"), 1_445_412_480)
        XCTAssertEqual(CookieDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT"), 1_445_412_480)
        XCTAssertEqual(CookieDate.parse("Sun Nov  6 08:49:37 1994"), 784_111_777)
        XCTAssertEqual(CookieDate.parse("Thu, 01 Jan 1970 00:00:00 GMT"), 0)
        XCTAssertEqual(CookieDate.parse("29 Feb 2024 12:00:00"), 1_709_208_000)
        XCTAssertNil(CookieDate.parse("not a date"))
        XCTAssertNil(CookieDate.parse("32 Jan 2020 00:00:00"))
        XCTAssertNil(CookieDate.parse("01 Jan 2020 25:00:00"))
    }

    func testPathAndDomainMatching() {
        XCTAssertTrue(Cookie.pathMatches("/app/live", "/app"))
        XCTAssertTrue(Cookie.pathMatches("/app/live", "/app/"))
        XCTAssertTrue(Cookie.pathMatches("/app", "/app"))
        XCTAssertFalse(Cookie.pathMatches("/application", "/app"))
        XCTAssertTrue(Cookie.domainMatches("a.b.example.com", "example.com"))
        XCTAssertFalse(Cookie.domainMatches("badexample.com", "example.com"))
        XCTAssertFalse(Cookie.domainMatches("1.2.3.4", "2.3.4"))
        XCTAssertEqual(Cookie.defaultPath("/"), "/")
        XCTAssertEqual(Cookie.defaultPath("/x"), "/")
        XCTAssertEqual(Cookie.defaultPath("/x/y?z=/"), "/x/y?z=", "the caller strips the query")
    }

    func testTheJarSendsWhatMatchesLongestPathFirst() {
        let jar = CookieJar(savePath: nil)
        let from = url("wss://www.example.com/app/live")
        jar.receive([(name: "Set-Cookie", value: "root=1; Path=/"),
                     (name: "set-cookie", value: "app=2; Path=/app"),
                     (name: "Set-Cookie", value: "other=3; Path=/other"),
                     (name: "Set-Cookie", value: "wide=4; Domain=example.com; Path=/"),
                     (name: "Set-Cookie", value: "tls=5; Secure; Path=/"),
                     (name: "X-Other", value: "no=6")], from: from, now: now)
        XCTAssertEqual(jar.header(for: url("wss://www.example.com/app/x?q=1"), now: now), "app=2; root=1; wide=4; tls=5")
        XCTAssertEqual(jar.header(for: url("ws://www.example.com/"), now: now), "root=1; wide=4")
        XCTAssertEqual(jar.header(for: url("wss://api.example.com/"), now: now), "wide=4", "host-only cookies stay on www")
        XCTAssertNil(jar.header(for: url("wss://example.org/"), now: now))
    }

    func testANewCookieReplacesItsNamesakeAndAnExpiredOneDeletesIt() {
        let jar = CookieJar(savePath: nil)
        let from = url("ws://h.example/")
        jar.receive([(name: "Set-Cookie", value: "a=1"), (name: "Set-Cookie", value: "b=2")], from: from, now: now)
        jar.receive([(name: "Set-Cookie", value: "a=3")], from: from, now: now)
        XCTAssertEqual(jar.header(for: from, now: now), "a=3; b=2", "the creation order is kept")
        jar.receive([(name: "Set-Cookie", value: "a=x; Max-Age=0")], from: from, now: now)
        XCTAssertEqual(jar.header(for: from, now: now), "b=2")
        jar.receive([(name: "Set-Cookie", value: "c=1; Max-Age=10")], from: from, now: now)
        XCTAssertEqual(jar.header(for: from, now: now + 11), "b=2", "expired by the clock")
    }

    func testTheJarIsBounded() {
        let jar = CookieJar(savePath: nil)
        let from = url("ws://h.example/")
        for i in 0..<(CookieJar.perDomain + 5) {
            jar.receive([(name: "Set-Cookie", value: "c\(i)=v")], from: from, now: now)
        }
        XCTAssertEqual(jar.cookies.count, CookieJar.perDomain)
        XCTAssertEqual(jar.cookies.first?.name, "c5", "the oldest went first")
        let big = String(repeating: "x", count: SetCookie.maxCookieBytes)
        XCTAssertNil(parse("big=" + big))
    }

    func testCurlsCookieFileFormatBothWays() {
        let text = """
            # Netscape HTTP Cookie File
            .example.com\tTRUE\t/\tFALSE\t0\tsession\tabc
            #HttpOnly_www.example.com\tFALSE\t/app\tTRUE\t2000000000\tsid\txyz
            www.example.com\tFALSE\t/\tFALSE\t1000\texpired\tgone
            www.example.com\tFALSE\t/\tFALSE\t0\tempty
            Set-Cookie: fromheader=1; Path=/
            not a cookie line

            """
        let cookies = CookieFile.parse(text, url: url("wss://www.example.com/app/"), now: now)
        XCTAssertEqual(cookies.map(\.name), ["session", "sid", "empty", "fromheader"])
        XCTAssertEqual(cookies[0].hostOnly, false)
        XCTAssertEqual(cookies[0].expires, nil)
        XCTAssertEqual(cookies[1].httpOnly, true)
        XCTAssertEqual(cookies[1].secure, true)
        XCTAssertEqual(cookies[1].expires, 2_000_000_000)
        XCTAssertEqual(cookies[2].value, "")
        XCTAssertEqual(cookies[3].domain, "www.example.com")
        let written = CookieFile.render(cookies)
        XCTAssertTrue(written.hasPrefix("# Netscape HTTP Cookie File\n"))
        XCTAssertTrue(written.contains("\n.example.com\tTRUE\t/\tFALSE\t0\tsession\tabc\n"))
        XCTAssertTrue(written.contains("\n#HttpOnly_www.example.com\tFALSE\t/app\tTRUE\t2000000000\tsid\txyz\n"))
        XCTAssertEqual(CookieFile.parse(written, url: url("wss://www.example.com/"), now: now), cookies.map {
            var c = $0
            c.created = 0
            return c
        })
    }
}
