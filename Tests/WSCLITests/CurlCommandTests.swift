import XCTest
@testable import WSCLI
@testable import WSConnect

/// `wspipe curl`: a DevTools "Copy as cURL" command cut into words as bash
/// or cmd would (`CommandText`), then read with curl's meanings
/// (`CurlTranslation`). The copies are written as the browsers produce them
/// (the escaping of Chrome's and Firefox's DevTools, see the comments).
final class CurlCommandTests: XCTestCase {
    private func words(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do { return try CommandText.words(text) } catch {
            XCTFail("unexpected: \(error.message)", file: file, line: line)
            return []
        }
    }

    private func problem(_ text: String) -> String? {
        do { _ = try CommandText.words(text); return nil } catch { return error.message }
    }

    private func translate(_ words: [String], file: StaticString = #filePath, line: UInt = #line) -> CurlTranslation? {
        do { return try CurlTranslation(words) } catch {
            XCTFail("unexpected: \(error.message)", file: file, line: line)
            return nil
        }
    }

    private func refusal(_ words: [String]) -> String? {
        do { _ = try CurlTranslation(words); return nil } catch { return error.message }
    }

    // MARK: bash

    /// Chrome's "Copy as cURL (bash)": single quotes, $'...' with \uXXXX for
    /// a quote, a control character or '!', a backslash-newline between options.
    func testChromeBash() {
        let copy = """
            curl 'wss://app.example.com/ws?room=1' \\
              -H 'Upgrade: websocket' \\
              -H 'Origin: https://app.example.com' \\
              -b 'sid=8f2c; theme=dark' \\
              -H $'X-Note: it\\'s \\u0021 \\\\ ok' \\
              -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \\
              --compressed
            """
        XCTAssertEqual(words(copy), ["curl", "wss://app.example.com/ws?room=1", "-H", "Upgrade: websocket",
                                     "-H", "Origin: https://app.example.com", "-b", "sid=8f2c; theme=dark",
                                     "-H", "X-Note: it's ! \\ ok", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                     "--compressed"])
        XCTAssertEqual(CommandText.dialect(copy), .bash)
    }

    /// Firefox's "Copy as cURL (POSIX)": one line, $'...' with \xHH for a
    /// non-ASCII character below 256 (Latin-1) and \uHHHH above.
    func testFirefoxPosix() {
        let copy = #"curl 'wss://app.example.com/ws' -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' -H $'X-Name: Ren\xe9e \u263a' -H 'Cookie: sid=8f2c'"#
        XCTAssertEqual(words(copy), ["curl", "wss://app.example.com/ws",
                                     "-H", "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                                     "-H", "X-Name: Renée ☺", "-H", "Cookie: sid=8f2c"])
    }

    func testBashQuoting() {
        XCTAssertEqual(words(##"curl "a \"b\" \$c \\ \d" 'it''s' x\ y $'\x41\101\t\e[' """##),
                       ["curl", #"a "b" $c \ \d"#, "its", "x y", "AA\t\u{1B}[", ""])
        XCTAssertEqual(words("curl \\\n  'a'\\\n'b'  # trailing comment\n\n"), ["curl", "ab"])
        XCTAssertEqual(problem("curl 'a"), "a quote is not closed")
        XCTAssertNotNil(problem("curl \"$TOKEN\""))
        XCTAssertNotNil(problem("curl $(cat x)"))
        XCTAssertNotNil(problem("curl `x`"))
        XCTAssertNotNil(problem("curl a | sh"))
        XCTAssertNotNil(problem("curl a; rm -rf x"))
        XCTAssertEqual(problem("curl 'a' ;\ncurl 'b'"), "';' outside quotes: paste one curl command, "
                       + "without pipes, redirections or a second command")
        XCTAssertEqual(problem("curl 'a'\ncurl 'b'"), "the text holds more than one command: paste one curl command")
        XCTAssertEqual(words("curl 'a$b' \"x\\$y\""), ["curl", "a$b", "x$y"])
    }

    // MARK: cmd

    /// Chrome's "Copy as cURL (cmd)": every value in ^"...^", \ doubled and
    /// " as \" for the C runtime, then ^ before every character outside
    /// [a-zA-Z0-9\s_\-:=+~'/.',?;()*`], %^ after a % that starts a name, a
    /// newline as ^ and two newlines, and " ^" with a newline between options.
    func testChromeCmd() {
        let copy = "curl ^\"wss://app.example.com/ws?room=1^&x=2^\" ^\r\n"
            + "  -H ^\"Origin: https://app.example.com^\" ^\r\n"
            + "  -b ^\"sid=8f2c; theme=dark^\" ^\r\n"
            + "  -H ^\"X-Quote: a^\\^\"b^\" ^\r\n"
            + "  -H ^\"X-Path: C:^\\^\\temp ^%^PATH^% 100^%^\" ^\r\n"
            + "  -H ^\"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==^\" ^\r\n"
            + "  --compressed"
        XCTAssertEqual(CommandText.dialect(copy), .cmd)
        XCTAssertEqual(words(copy), ["curl", "wss://app.example.com/ws?room=1&x=2", "-H", "Origin: https://app.example.com",
                                     "-b", "sid=8f2c; theme=dark", "-H", "X-Quote: a\"b",
                                     "-H", "X-Path: C:\\temp %PATH% 100%",
                                     "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "--compressed"])
    }

    /// Firefox's "Copy as cURL (Windows)": the same escaping, all on one line.
    func testFirefoxWindows() {
        let copy = "curl.exe ^\"wss://app.example.com/ws^\" -H ^\"Origin: https://app.example.com^\" "
            + "-H ^\"Cookie: sid=8f2c^\" -H ^\"Sec-WebSocket-Protocol: chat^\""
        XCTAssertEqual(CommandText.dialect(copy), .cmd)
        XCTAssertEqual(words(copy), ["curl.exe", "wss://app.example.com/ws", "-H", "Origin: https://app.example.com",
                                     "-H", "Cookie: sid=8f2c", "-H", "Sec-WebSocket-Protocol: chat"])
    }

    func testCmdRules() {
        // A newline in a value: ^ and two newlines.
        XCTAssertEqual(words("curl ^\"a^\n\nb^\""), ["curl", "a\nb"])
        // Plain quotes (typed by hand): ^ is literal inside them.
        XCTAssertEqual(words("curl ^\n \"a^b\" c\"d e\"f"), ["curl", "a^b", "cd ef"])
        // The C runtime's backslashes: 2n before a quote are n, 2n+1 a literal quote.
        XCTAssertEqual(CmdWords.arguments(Array("a\\\\\"b c\" d\\e \"x\"\"y\"".unicodeScalars)), ["a\\b c", "d\\e", "x\"y"])
        XCTAssertNotNil(problem("curl ^\"a^\" & del x"))
        XCTAssertNotNil(problem("curl ^\"a^\"\ncurl ^\"b^\""))
        XCTAssertEqual(problem("curl \"a"), "a quote is not closed")
    }

    /// Reading stdin stops at the line that completes the command.
    func testCompleteness() {
        XCTAssertFalse(CommandText.isComplete(""))
        XCTAssertFalse(CommandText.isComplete("\n  \n"))
        XCTAssertFalse(CommandText.isComplete("curl 'wss://x' \\\n"))
        XCTAssertFalse(CommandText.isComplete("curl 'wss://x\n"))
        XCTAssertFalse(CommandText.isComplete("curl $'it\\'s\n"))
        XCTAssertTrue(CommandText.isComplete("curl 'wss://x' \\\n  -H 'A: b'\n"))
        XCTAssertFalse(CommandText.isComplete("curl ^\"wss://x^\" ^\n"))
        XCTAssertTrue(CommandText.isComplete("curl ^\"wss://x^\" ^\n  -H ^\"A: b^\"\n"))
        XCTAssertFalse(CommandText.isComplete("curl ^\"a^\n"), "a newline in a value: ^, then one more line")
    }

    // MARK: curl's meanings

    func testHeadersAreReadByTheirNames() throws {
        let t = try XCTUnwrap(translate([
            "curl", "wss://app.example.com/ws", "-H", "Upgrade: websocket", "-H", "Connection: Upgrade",
            "-H", "Origin: https://app.example.com", "-H", "Host: other.example", "-H", "Pragma: no-cache",
            "-H", "Sec-WebSocket-Key: abc==", "-H", "Sec-WebSocket-Version: 13",
            "-H", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, x-webkit-deflate-frame",
            "-H", "Sec-WebSocket-Protocol: chat, superchat", "-H", "User-Agent: Mozilla/5.0",
            "-H", "Cookie: a=1", "-b", "b=2", "-H", "Authorization: Bearer t", "-H", "Accept-Encoding: gzip",
            "-H", "X-Empty;", "-H", "X-Removed:", "-H", ":authority: x", "--compressed",
        ]))
        XCTAssertEqual(t.arguments, [
            "--origin", "https://app.example.com", "--header", "Pragma: no-cache", "--compress",
            "--protocol", "chat", "--protocol", "superchat", "--user-agent", "Mozilla/5.0",
            "--header", "Cookie: a=1; b=2", "--header", "Authorization: Bearer t", "--header", "X-Empty:",
            "wss://app.example.com/ws",
        ])
        let notes = t.notes.joined(separator: "\n")
        for dropped in ["Upgrade", "Connection", "Host", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
                        "Accept-Encoding", "--compressed", "x-webkit-deflate-frame", "X-Removed", ":authority"] {
            XCTAssertTrue(notes.contains(dropped), "no note for \(dropped): \(notes)")
        }
        XCTAssertTrue(notes.contains("wspipe makes a new key for each handshake"))
    }

    func testOptionsWithCurlsMeanings() throws {
        let t = try XCTUnwrap(translate([
            "https://app.example.com/ws", "-u", "ann:pw", "-A", "ua/1", "-e", "https://ref.example/;auto",
            "-kL", "--cacert", "ca.pem", "-x", "proxy.corp:3128", "-U", "p:q", "--connect-timeout", "2.5",
            "-4", "--max-redirs", "3", "-c", "jar.txt", "-b", "cookies.txt", "-sSv", "-X", "GET",
            "--oauth2-bearer", "tok", "--url=ignored-second?",
        ].dropLast()))
        XCTAssertEqual(t.url, "wss://app.example.com/ws")
        XCTAssertEqual(t.arguments, [
            "--user", "ann:pw", "--user-agent", "ua/1", "--header", "Referer: https://ref.example/",
            "--insecure", "--location", "--cacert", "ca.pem", "--proxy", "http://proxy.corp:3128",
            "--proxy-user", "p:q", "--connect-timeout", "2.5", "--ipv4", "--max-redirs", "3",
            "--cookie-jar", "jar.txt", "--quiet", "--verbose", "--header", "Authorization: Bearer tok",
            "--cookie", "cookies.txt", "wss://app.example.com/ws",
        ])
        XCTAssertTrue(t.verbose)
        XCTAssertTrue(t.notes.contains("curl: https:// read as wss://"))
        // A bundle whose last letter takes the rest as its value.
        XCTAssertEqual(try XCTUnwrap(translate(["-kHX-A: 1", "ws://h/"])).arguments,
                       ["--insecure", "--header", "X-A: 1", "ws://h/"])
        XCTAssertEqual(try XCTUnwrap(translate(["--url", "ws://h/x"])).url, "ws://h/x")
    }

    /// What cannot be honoured is named, all of it at once; what is unknown stops the reading.
    func testRefusals() {
        XCTAssertEqual(refusal(["curl", "wss://h/", "--data-raw", "{}", "-X", "POST", "-o", "out"]),
                       "curl: cannot honour --data-raw: a WebSocket handshake is a GET without a body; "
                       + "-X POST: a WebSocket handshake is a GET; -o: the messages go to stdout (--route writes them to files)")
        XCTAssertEqual(refusal(["curl", "wss://h/", "--frobnicate"]),
                       "curl: unknown option '--frobnicate'; wspipe curl reads the options of 'wspipe curl --help' "
                       + "(give wspipe's own after --)")
        XCTAssertEqual(refusal(["curl", "wss://h/", "-Z"]),
                       "curl: unknown option '-Z'; wspipe curl reads the options of 'wspipe curl --help' "
                       + "(give wspipe's own after --)")
        XCTAssertEqual(refusal(["curl", "-H"]), "curl: missing value for -H")
        XCTAssertEqual(refusal(["curl", "-H", "X: 1"]), "curl: the command has no URL")
        XCTAssertEqual(refusal(["curl", "ws://a/", "ws://b/"]), "curl: more than one URL ('ws://a/' and 'ws://b/')")
        XCTAssertEqual(refusal(["curl", "ws://a/", "-u", "ann"]),
                       "curl: cannot honour -u without a password (curl would ask for it): give -u USER:PASSWORD")
        XCTAssertEqual(refusal(["curl", "ws://a/", "-H", "nocolon"]), "curl: -H 'nocolon': expected 'Name: value'")
    }

    func testTheTableIsSound() {
        var names: Set<String> = []
        for option in CurlOption.table {
            XCTAssertTrue(names.insert(option.long).inserted, option.long)
            if let short = option.short { XCTAssertTrue(names.insert("-\(short)").inserted, "-\(short)") }
            if case .flag(let long) = option.meaning {
                XCTAssertNotNil(FlagTable.flag(long: long), "--\(option.long) maps to unknown --\(long)")
                XCTAssertEqual(FlagTable.flag(long: long)?.takesValue, option.takesValue, option.long)
            }
        }
        // The options the issue names are all read.
        for long in ["header", "cookie", "user", "user-agent", "referer", "insecure", "cacert", "proxy",
                     "connect-timeout", "ipv4", "ipv6", "location", "compressed"] {
            XCTAssertNotNil(CurlOption.find(long: long), long)
        }
    }

    func testShellQuoting() {
        XCTAssertEqual(ShellQuote.word("wss://h/ws?x=1"), "'wss://h/ws?x=1'")
        XCTAssertEqual(ShellQuote.word("https://h.example/a-b_c.d:1"), "https://h.example/a-b_c.d:1")
        XCTAssertEqual(ShellQuote.word("it's"), "'it'\\''s'")
        XCTAssertEqual(ShellQuote.word(""), "''")
        XCTAssertEqual(ShellQuote.word("a\tb'\\"), "$'a\\x09b\\'\\\\'")
        // What bash reads back is the word.
        for word in ["it's", "a b", "$x", "a\tb'\\", "Mozilla/5.0 (X11; rv:128.0)"] {
            let quoted = ShellQuote.word(word)
            let back = try? CommandText.words("curl " + quoted)
            XCTAssertEqual(back, ["curl", word], quoted)
        }
    }

    func testHelpNamesWhatIsRead() {
        let help = CurlCommand.help()
        for line in help.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        for name in ["-H, --header", "-b, --cookie", "--cacert", "-x, --proxy", "--compressed", "--print"] {
            XCTAssertTrue(help.replacingOccurrences(of: "\n", with: " ").contains(name), name)
        }
    }
}
