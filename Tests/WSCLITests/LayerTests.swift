import Foundation
import XCTest

/// The layers of Sources/README.md hold: each target imports only what its
/// row allows (never a layer above it), only WSTransport talks to the C
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

    /// The check above catches what it is for.
    func testTheCheckSeesAViolation() {
        let glibc = "#if canImport(Glibc)\nimport Glibc\n#endif\nimport WSCore\n"
        XCTAssertEqual(Self.violations(path: "WSBridge/Lines/X.swift", text: glibc),
                       ["WSBridge/Lines/X.swift imports Glibc, which WSBridge may not"])
        XCTAssertEqual(Self.violations(path: "WSTransport/X.swift", text: glibc), [])
        XCTAssertEqual(Self.violations(path: "WSJSON/X.swift", text: "@testable import WSBridge\n"),
                       ["WSJSON/X.swift imports WSBridge, which WSJSON may not"], "an upward import")
        XCTAssertEqual(Self.violations(path: "WSCore/X.swift", text: "import struct Foundation.Data\n"),
                       ["WSCore/X.swift imports Foundation, which WSCore may not"])
        XCTAssertEqual(Self.violations(path: "WSBridge/IO/X.swift", text: "unowned(unsafe) let x: Y\n").count, 1)
        XCTAssertEqual(Self.violations(path: Self.unretainedFile, text: "unowned(unsafe) let x: Y\n"), [])
    }
}
