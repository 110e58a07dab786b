import Foundation
import XCTest

/// The layers of Sources/README.md hold: each target imports only what its
/// row allows (never a layer above it), each file of the bridge's targets is
/// in the folder the folder table gives it, only WSTransport talks to the C
/// library (Glibc or Darwin), nothing imports Foundation, and the references
/// used without retaining them stay in the one file that states their
/// invariants (Sources/WSBridge/Session/UnretainedReferences.swift).
final class LayerTests: XCTestCase {
    /// What each target may import: Sources/README.md's table of layers.
    static let allowedImports: [String: Set<String>] = [
        "WSCore": ["COpenSSL", "CZlib"],
        "WSTransport": ["COpenSSL", "WSCore", "Glibc", "Darwin"],
        // The compiler's own x86-64 vector intrinsics, not a library.
        "WSJSON": ["_Builtin_intrinsics.intel"],
        "WSCodecs": ["_Builtin_intrinsics.intel"],
        "WSTerminal": [],
        "WSSocketIO": ["WSCore", "WSJSON"],
        "WSMessages": ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSSocketIO"],
        "WSConsole": ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSMessages"],
        "WSConnect": ["WSCore", "WSTransport", "WSTerminal", "WSMessages"],
        "WSBridge": ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSSocketIO", "WSMessages", "WSConsole",
                     "WSConnect"],
        "WSCLI": ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSSocketIO", "WSMessages", "WSConsole",
                  "WSConnect", "WSBridge", "BuildInfo"],
        "wspipe": ["WSCLI"],
        // The commit `--version` names; written at build time by CommitStamp.
        "BuildInfo": [],
        // A build plugin: it runs inside SwiftPM, is linked into nothing.
        "CommitStamp": ["PackagePlugin", "Foundation"],
    ]

    /// The folder table (Sources/README.md, "Which folder holds what"): for
    /// each folder of the bridge's targets, the target it belongs to, what it
    /// holds, and the files only it may hold (a name, or a prefix with `*`).
    /// A folder with Swift files and no row fails, and so does a file a row
    /// claims that sits in another folder: a type put in the wrong place.
    /// (Each file's folder names its target: Sources/TARGET/FOLDER.)
    struct Folder {
        let target: String
        /// The folder inside the target; "" for its top.
        let folder: String
        let holds: String
        let claims: [String]
        var path: String { folder.isEmpty ? target : target + "/" + folder }
    }

    static let folderTable: [Folder] = [
        Folder(target: "WSMessages", folder: "Lines", holds: "stdin lines to messages: splitting, envelopes, the translator",
               claims: ["LineSplitter", "LineFormat", "Envelope", "InputTranslator", "JSONColorizer", "BinaryOutputMode",
                        "OutgoingMessage", "PendingValue", "SocketIOLineCheck"]),
        Folder(target: "WSMessages", folder: "Templates", holds: "--wrap, --on-connect and the console's templates",
               claims: ["MessageTemplate", "TemplateCheck", "TemplateError", "TemplateVariable"]),
        Folder(target: "WSMessages", folder: "Events", holds: "what wspipe says on stderr, reply latencies",
               claims: ["Diagnostics", "LatencyHistogram"]),
        Folder(target: "WSConsole", folder: "", holds: "the interactive mode's terminal side, without I/O",
               claims: ["Interactive*", "Transcript*", "SlashCommand", "HistoryFile", "SavedMessages", "StatusLine",
                        "TabCompletion", "JSONLayout", "MessageFilter", "MessageFile", "ConsoleNote"]),
        Folder(target: "WSConnect", folder: "", holds: "one connection attempt: the connector, its phases, the request, the handshake read",
               claims: ["ClientConnector", "ConnectorPhases", "HeaderCommand", "RequestHeaders", "WebSocketURL",
                        "Handshake*", "TLSContextSource", "Disconnect"]),
        Folder(target: "WSConnect", folder: "Cookies", holds: "the cookie engine (RFC 6265), curl's cookie file",
               claims: ["Cookie*", "SetCookie", "PublicSuffix*"]),
        Folder(target: "WSConnect", folder: "Redirects", holds: "-L: following a 3xx", claims: ["Redirect*"]),
        Folder(target: "WSBridge", folder: "", holds: "the options and the exit status all sessions share", claims: []),
        Folder(target: "WSBridge", folder: "Lines", holds: "stdin's pump and queue, output formatting", claims: ["StdinPump*"]),
        Folder(target: "WSBridge", folder: "Events", holds: "event lines, --stats, -w", claims: ["EventLine*", "WriteOut"]),
        Folder(target: "WSBridge", folder: "IO", holds: "the WebSocket channel, message output", claims: ["WebSocketChannel*"]),
        Folder(target: "WSBridge", folder: "Routing", holds: "routes and destinations", claims: ["Route*", "Destination*"]),
        Folder(target: "WSBridge", folder: "Reconnect", holds: "backoff, retries, replay, acks", claims: ["Backoff*", "Retry*"]),
        Folder(target: "WSBridge", folder: "Delivery", holds: "what was delivered, what is re-sent", claims: ["Delivery*"]),
        Folder(target: "WSBridge", folder: "Session", holds: "the shell both sessions run in", claims: ["SessionShell*"]),
        Folder(target: "WSBridge", folder: "Client", holds: "the client session", claims: ["ClientSession*", "ClientLifecycle*"]),
        Folder(target: "WSBridge", folder: "Interactive", holds: "the console wired to the client session",
               claims: ["InteractiveFrontend"]),
        Folder(target: "WSBridge", folder: "Server", holds: "the server session", claims: ["ServerSession*", "ServerLifecycle"]),
        Folder(target: "WSBridge", folder: "Server/Exec", holds: "--exec clients", claims: ["Exec*"]),
        Folder(target: "WSBridge", folder: "Script", holds: "the scripted peer, recordings, --replay", claims: ["Recording*"]),
        Folder(target: "WSBridge", folder: "SocketIO", holds: "Socket.IO sessions' links", claims: ["SocketIOOutgoing", "SocketIO*Link"]),
        Folder(target: "WSBridge", folder: "Check", holds: "--check", claims: ["Check*"]),
    ]

    /// What is wrong with where `path` (relative to Sources/) is, by the folder table.
    static func folderViolations(path: String) -> [String] {
        let parts = path.split(separator: "/").map(String.init)
        guard let target = parts.first, parts.count >= 2, folderTable.contains(where: { $0.target == target }) else { return [] }
        let folder = parts.dropLast().joined(separator: "/")
        var found: [String] = []
        if !folderTable.contains(where: { $0.path == folder }) {
            found.append("\(path): the folder \(folder) has no row in the folder table")
        }
        let name = String(parts.last!.dropLast(".swift".count))
        // The longest claim decides (InteractiveFrontend before Interactive*).
        var best: (length: Int, row: Folder)?
        for row in folderTable {
            for claim in row.claims {
                let matches = claim.hasSuffix("*") ? name.hasPrefix(String(claim.dropLast()))
                    : claim.contains("*") ? name.hasPrefix(String(claim.prefix { $0 != "*" }))
                        && name.hasSuffix(String(claim.drop { $0 != "*" }.dropFirst())) : name == claim
                if matches, claim.count > (best?.length ?? 0) { best = (claim.count, row) }
            }
        }
        if let owner = best?.row, owner.path != folder {
            found.append("\(path) belongs in \(owner.path) (\(owner.holds))")
        }
        return found
    }

    static let unretainedFile = "WSBridge/Session/UnretainedReferences.swift"
    static let unretainedMarks = ["unowned(unsafe)", "_withUnsafeGuaranteedRef", "passUnretained"]

    private static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
    }

    /// Every Swift file under Sources/, as (path relative to Sources/, text).
    private func swiftFiles() throws -> [(path: String, text: String)] {
        let root = Self.sources.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [(String, String)] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            files.append((path, try String(contentsOfFile: root + "/" + path, encoding: .utf8)))
        }
        return files
    }

    /// The modules a file imports (`import X`, `@testable import X`,
    /// `import struct X.Y`, ...), whatever `#if` they sit under.
    static func imports(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
            guard words.first == "import", words.count >= 2 else { return nil }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let module = kinds.contains(words[1]) && words.count >= 3 ? words[2].split(separator: ".").first.map(String.init) ?? words[2] : words[1]
            return module
        }
    }

    /// What is wrong with `text`, the file `path` (relative to Sources/).
    static func violations(path: String, text: String) -> [String] {
        let target = String(path.split(separator: "/").first ?? "")
        guard let allowed = allowedImports[target] else { return ["\(path): unknown target \(target)"] }
        var found: [String] = []
        for module in imports(in: text) where !allowed.contains(module) {
            found.append("\(path) imports \(module), which \(target) may not")
        }
        if path != unretainedFile {
            for mark in unretainedMarks where text.contains(mark) {
                found.append("\(path) uses \(mark): unretained references live in \(unretainedFile)")
            }
        }
        return found
    }

    func testEveryTargetImportsOnlyWhatItsLayerAllows() throws {
        let files = try swiftFiles()
        XCTAssertGreaterThan(files.count, 150, "Sources/ found at \(Self.sources.path)")
        let targets = Set(files.map { String($0.path.split(separator: "/").first ?? "") })
        XCTAssertEqual(targets, Set(Self.allowedImports.keys), "a target without a row, or a row without a target")
        for file in files {
            for violation in Self.violations(path: file.path, text: file.text) { XCTFail(violation) }
        }
    }

    func testEveryFileIsInTheFolderTheTableGivesIt() throws {
        let files = try swiftFiles()
        for file in files {
            for violation in Self.folderViolations(path: file.path) { XCTFail(violation) }
        }
        // Every row names a folder that exists, of a target that exists.
        let folders = Set(files.map { $0.path.split(separator: "/").dropLast().joined(separator: "/") })
        for row in Self.folderTable where !folders.contains(row.path) { XCTFail("\(row.path): a row without a folder") }
    }

    /// The folder check catches what it is for.
    func testTheFolderCheckSeesAMisplacedFile() {
        XCTAssertEqual(Self.folderViolations(path: "WSConnect/Cookies/CookieJar.swift"), [])
        XCTAssertEqual(Self.folderViolations(path: "WSBridge/Client/CookieJar.swift"),
                       ["WSBridge/Client/CookieJar.swift belongs in WSConnect/Cookies (the cookie engine (RFC 6265), curl's cookie file)"])
        XCTAssertEqual(Self.folderViolations(path: "WSConsole/InteractiveFrontend.swift"),
                       ["WSConsole/InteractiveFrontend.swift belongs in WSBridge/Interactive (the console wired to the client session)"],
                       "the longest claim decides")
        XCTAssertEqual(Self.folderViolations(path: "WSBridge/Interactive/InteractiveConsole.swift").count, 1)
        XCTAssertEqual(Self.folderViolations(path: "WSBridge/SocketIO/SocketIOLineCheck.swift").count, 1, "WSMessages' file in the bridge")
        XCTAssertEqual(Self.folderViolations(path: "WSBridge/Cookies/X.swift"),
                       ["WSBridge/Cookies/X.swift: the folder WSBridge/Cookies has no row in the folder table"])
        XCTAssertEqual(Self.folderViolations(path: "WSMessages/Lines/ClientSession.swift").count, 1, "a claim of the bridge")
        XCTAssertEqual(Self.folderViolations(path: "WSCore/Disconnect.swift"), [], "only the bridge's targets have rows")
    }

    /// The check above catches what it is for.
    func testTheCheckSeesAViolation() {
        let glibc = "#if canImport(Glibc)\nimport Glibc\n#endif\nimport WSCore\n"
        XCTAssertEqual(Self.violations(path: "WSBridge/Lines/X.swift", text: glibc),
                       ["WSBridge/Lines/X.swift imports Glibc, which WSBridge may not"])
        XCTAssertEqual(Self.violations(path: "WSTransport/X.swift", text: glibc), [])
        XCTAssertEqual(Self.violations(path: "WSJSON/X.swift", text: "@testable import WSBridge\n"),
                       ["WSJSON/X.swift imports WSBridge, which WSJSON may not"], "an upward import")
        XCTAssertEqual(Self.violations(path: "WSConnect/X.swift", text: "import WSBridge\n"),
                       ["WSConnect/X.swift imports WSBridge, which WSConnect may not"], "the connector under the bridge")
        XCTAssertEqual(Self.violations(path: "WSConsole/X.swift", text: "import WSBridge\nimport WSConnect\n"),
                       ["WSConsole/X.swift imports WSBridge, which WSConsole may not",
                        "WSConsole/X.swift imports WSConnect, which WSConsole may not"])
        XCTAssertEqual(Self.violations(path: "WSMessages/X.swift", text: "import WSConsole\n").count, 1)
        XCTAssertEqual(Self.violations(path: "WSCore/X.swift", text: "import struct Foundation.Data\n"),
                       ["WSCore/X.swift imports Foundation, which WSCore may not"])
        XCTAssertEqual(Self.violations(path: "WSBridge/IO/X.swift", text: "unowned(unsafe) let x: Y\n").count, 1)
        XCTAssertEqual(Self.violations(path: Self.unretainedFile, text: "unowned(unsafe) let x: Y\n"), [])
    }
}
