import WSTransport

/// The files flags name, read when the run is planned: `--header-file` and
/// `--on-connect-file`. A file that cannot be read or parsed is a usage
/// error naming the flag and the file.
enum OptionFiles {
    /// `--header-file`: one "Name: value" a line; blank lines and '#' comments skipped.
    static func headers(fromFile path: String) throws(UsageError) -> [(name: String, value: String)] {
        let text = try read("header-file", path)
        var result: [(name: String, value: String)] = []
        var number = 0
        for line in lines(text) {
            number += 1
            if isBlank(line) || line.first == "#" { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" }) else {
                throw UsageError("--header-file \(path):\(number): expected 'Name: value'")
            }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            guard FlagValue.isToken(name) else {
                throw UsageError("--header-file \(path):\(number): expected 'Name: value' (the name is an HTTP token)")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
                throw UsageError("--header-file \(path):\(number): control character in the value")
            }
            try FlagValue.checkNotReserved(name, "--header-file \(path):\(number)")
            result.append((name: name, value: String(value)))
        }
        return result
    }

    /// `--proxy-user-file`: `USER:PASSWORD` on the first line (its line end
    /// is not part of the password).
    static func proxyUser(fromFile path: String) throws(UsageError) -> (user: String, password: String) {
        let text = try read("proxy-user-file", path)
        let first = lines(text).first ?? ""
        return try FlagValue.proxyUser("proxy-user-file \(path)", String(first))
    }

    /// `--on-connect-file`: one message a line; blank lines skipped.
    static func messages(fromFile path: String) throws(UsageError) -> [String] {
        let text = try read("on-connect-file", path)
        return lines(text).filter { !isBlank($0) }.map(String.init)
    }

    /// Certificate and key files (--cacert, --cert, --key) are read when the
    /// run starts; one that cannot be read is a usage error now, like a
    /// missing --header-file, not a failure after connecting.
    static func checkReadable(_ files: KeyValuePairs<String, String?>) throws(UsageError) {
        for case let (long, path?) in files {
            _ = try read(long, path)
        }
    }

    /// `--user-file`: USER:PASSWORD on the first line, its line end not part of it.
    static func credentials(fromFile path: String) throws(UsageError) -> String {
        let first = lines(try read("user-file", path)).first.map(String.init) ?? ""
        guard first.contains(":"), !first.contains("\r") else {
            throw UsageError("--user-file \(path): expected USER:PASSWORD on the first line")
        }
        return first
    }

    /// `--cookie FILE`: its text, or nil when it does not exist yet (an empty
    /// jar, as curl reads it, so -b and -c can name the same new file).
    static func cookies(fromFile path: String) throws(UsageError) -> String? {
        if FileSystem.isMissing(path) { return nil }
        return try read("cookie", path)
    }

    /// A whole file for `--FLAG @FILE`.
    static func text(flag: String, path: String) throws(UsageError) -> String {
        try read(flag, path)
    }

    private static func read(_ long: String, _ path: String) throws(UsageError) -> String {
        do { return try TextFile.read(path) } catch { throw UsageError("--\(long) \(path): \(error)") }
    }

    /// Lines ended by LF or CRLF. "\r\n" is one Character in Swift, so
    /// splitting at "\n" alone would keep CRLF lines together.
    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    private static func isBlank(_ line: Substring) -> Bool {
        line.allSatisfy { $0 == " " || $0 == "\t" }
    }
}
