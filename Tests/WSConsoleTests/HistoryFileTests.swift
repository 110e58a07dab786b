import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import WSConsole
import WSTerminal
import WSTransport

final class HistoryFileTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        var template = Array("/tmp/wspipe-history-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    override func tearDown() {
        _ = system("rm -rf '\(directory)'")
    }

    private func contents(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        while true {
            let c = fgetc(f)
            if c == EOF { break }
            bytes.append(UInt8(c))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0, path)
        return st.st_mode & 0o777
    }

    func testDefaultPathFollowsXDG() {
        XCTAssertEqual(HistoryFile.defaultPath(stateHome: "/s", home: "/h"), "/s/wspipe/history")
        XCTAssertEqual(HistoryFile.defaultPath(stateHome: nil, home: "/h"), "/h/.local/state/wspipe/history")
        XCTAssertEqual(HistoryFile.defaultPath(stateHome: "", home: "/h"), "/h/.local/state/wspipe/history")
        XCTAssertEqual(HistoryFile.defaultPath(stateHome: "relative", home: "/h"), "/h/.local/state/wspipe/history",
                       "a relative XDG_STATE_HOME is ignored, as the spec says")
        XCTAssertNil(HistoryFile.defaultPath(stateHome: nil, home: nil))
    }

    func testRoundTripWithMultiLineEntriesAndBackslashes() throws {
        let path = HistoryFile.defaultPath(stateHome: directory + "/state", home: nil)!
        var file = HistoryFile(path: path, limit: 100)
        XCTAssertEqual(file.load().entries, [], "a missing file is an empty history")
        let entries = ["{\"a\": 1}", "{\n  \"b\": \"x\\ny\"\n}", #"C:\path\n"#, "crlf\r\nend", "日本語 😀"]
        for (i, entry) in entries.enumerated() {
            XCTAssertNil(file.append(entry, entries: Array(entries[...i])))
        }
        XCTAssertEqual(contents(path), #"""
            {"a": 1}
            {\n  "b": "x\\ny"\n}
            C:\\path\\n
            crlf\r\nend
            日本語 😀

            """#, "one entry a line, readable")
        var again = HistoryFile(path: path, limit: 100)
        XCTAssertEqual(again.load().entries, entries)
        XCTAssertEqual(again.lineCount, entries.count)
    }

    func testCreatedPrivateWithItsDirectories() {
        let path = directory + "/a/b/wspipe/history"
        var file = HistoryFile(path: path, limit: 10)
        XCTAssertNil(file.append("secret token", entries: ["secret token"]))
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(mode(directory + "/a/b/wspipe"), 0o700)
        XCTAssertEqual(mode(directory + "/a"), 0o700)
    }

    /// An existing history file readable by others (an older wspipe, a
    /// copy, a chmod) is made private again before it is read or written,
    /// and so is wspipe's own directory; a directory not named wspipe (a
    /// WSPIPE_HISTFILE elsewhere) is left as it is.
    func testAnExistingFileAndItsDirectoryAreMadePrivateAgain() {
        let own = directory + "/state/wspipe"
        let path = own + "/history"
        XCTAssertEqual(system("mkdir -p '\(own)' && chmod 755 '\(own)' && echo old > '\(path)' && chmod 644 '\(path)'"), 0)
        var file = HistoryFile(path: path, limit: 10)
        XCTAssertEqual(file.load().entries, ["old"])
        XCTAssertEqual(mode(path), 0o600, "on load")
        XCTAssertEqual(mode(own), 0o700)
        XCTAssertEqual(system("chmod 640 '\(path)'"), 0)
        XCTAssertNil(file.append("new", entries: ["old", "new"]))
        XCTAssertEqual(mode(path), 0o600, "on append")
        XCTAssertEqual(contents(path), "old\nnew\n")

        let shared = directory + "/shared"
        XCTAssertEqual(system("mkdir -p '\(shared)' && chmod 755 '\(shared)'"), 0)
        var elsewhere = HistoryFile(path: shared + "/h", limit: 10)
        XCTAssertNil(elsewhere.append("x", entries: ["x"]))
        XCTAssertEqual(mode(shared + "/h"), 0o600)
        XCTAssertEqual(mode(shared), 0o755, "not wspipe's directory")
    }

    func testBoundedOnLoadAndRewrittenWhenTwiceTheLimit() {
        let path = directory + "/history"
        var file = HistoryFile(path: path, limit: 3)
        var list = HistoryList(limit: 3)
        for i in 1...6 {
            list.add("m\(i)")
            XCTAssertNil(file.append("m\(i)", entries: list.entries))
        }
        XCTAssertEqual(contents(path), "m1\nm2\nm3\nm4\nm5\nm6\n", "appended up to twice the limit")
        var loaded = HistoryFile(path: path, limit: 3)
        XCTAssertEqual(loaded.load().entries, ["m4", "m5", "m6"])
        list.add("m7")
        XCTAssertNil(file.append("m7", entries: list.entries))
        XCTAssertEqual(contents(path), "m5\nm6\nm7\n", "rewritten with the newest entries")
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertNil(file.append("m8", entries: ["m6", "m7", "m8"]))
        XCTAssertEqual(contents(path), "m5\nm6\nm7\nm8\n")
    }

    /// The rewrite went through `HISTFILE.tmp.PID`, opened without O_EXCL:
    /// a link planted there had the history written over the file it named.
    func testTheRewriteFollowsNoLinkPlantedAtAPredictableName() {
        let path = directory + "/history"
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious\n".utf8)))
        XCTAssertEqual(symlink(victim, path + ".tmp.\(getpid())"), 0)
        XCTAssertEqual(symlink(victim, path + ".wspipe-\(getpid())"), 0)
        var file = HistoryFile(path: path, limit: 1)
        XCTAssertNil(file.append("m1", entries: ["m1"]))
        XCTAssertNil(file.append("m2", entries: ["m2"]))
        XCTAssertNil(file.append("m3", entries: ["m3"]), "rewritten")
        XCTAssertEqual(contents(path), "m3\n")
        XCTAssertEqual(contents(victim), "precious\n")
        XCTAssertEqual(mode(path), 0o600)
    }

    /// A history file that is a link to another file is not written through.
    func testAHistoryThatIsALinkIsNotAppendedThrough() {
        let path = directory + "/history"
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious\n".utf8)))
        XCTAssertEqual(symlink(victim, path), 0)
        var file = HistoryFile(path: path, limit: 10)
        let warning = file.append("token", entries: ["token"])
        XCTAssertTrue(warning?.contains("symbolic link") ?? false, warning ?? "nil")
        XCTAssertEqual(contents(victim), "precious\n")
    }

    func testFailuresAreReportedOnceAndNeverStopTheHistory() {
        // A regular file where a directory should be: every write fails.
        let blocker = directory + "/blocker"
        XCTAssertNotNil(fopen(blocker, "w").map { fclose($0) })
        var file = HistoryFile(path: blocker + "/history", limit: 10)
        let (entries, warning) = file.load()
        XCTAssertEqual(entries, [])
        XCTAssertNotNil(warning, "ENOTDIR on reading is not a missing file")
        let first = file.append("a", entries: ["a"])
        XCTAssertNil(first, "already reported once")
        var fresh = HistoryFile(path: blocker + "/history", limit: 10)
        let warningOnWrite = fresh.append("a", entries: ["a"])
        XCTAssertEqual(warningOnWrite.map { $0.hasPrefix("history: cannot write \(blocker)/history: ") }, true,
                       warningOnWrite ?? "nil")
        XCTAssertNil(fresh.append("b", entries: ["a", "b"]))
    }

    func testEscapingIsReversibleForEveryByte() {
        for entry in ["", "\\", "\\n", "\n", "\\\n\\", "a\\b", "\r", "trailing\\"] {
            let line = HistoryFile.escape(entry)
            XCTAssertFalse(line.contains(0x0A), entry)
            XCTAssertEqual(HistoryFile.unescape(line), entry)
        }
        XCTAssertEqual(HistoryFile.unescape(Array(#"a\qb\"#.utf8)), #"a\qb\"#, "an unknown escape is kept as typed")
    }
}
