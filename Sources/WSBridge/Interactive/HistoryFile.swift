#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WSTerminal

/// The history on disk: one entry a line, appended as each line is sent, so
/// that a crash loses nothing and two sessions at once both keep theirs.
///
/// An entry may hold line breaks (a pasted JSON value), so entries are
/// stored escaped: `\` as `\\`, LF as `\n`, CR as `\r`; every other byte as
/// it is, so the file stays readable and grep-able. The file is created
/// with mode 0600 (what was typed can be a token) and its directories with
/// 0700 (XDG Base Directory spec). When it holds twice `limit` lines it is
/// rewritten with the newest `limit` (through a temporary file and rename(2)).
///
/// No failure is fatal: the first one is returned as a warning to show,
/// later ones are silent, and the history keeps working in memory.
struct HistoryFile {
    let path: String
    let limit: Int
    /// Lines in the file as far as this process knows.
    private(set) var lineCount = 0
    private var warned = false
    /// Files larger than this are read from their last `maxReadBytes` only.
    static let maxReadBytes = 8 << 20

    init(path: String, limit: Int) {
        self.path = path
        self.limit = max(1, limit)
    }

    /// `$XDG_STATE_HOME/wspipe/history`, or `~/.local/state/wspipe/history`
    /// when XDG_STATE_HOME is unset, empty or relative (the spec says to
    /// ignore a relative one); nil without a usable home either.
    static func defaultPath(stateHome: String?, home: String?) -> String? {
        if let stateHome, stateHome.hasPrefix("/") { return stateHome + "/wspipe/history" }
        guard let home, !home.isEmpty else { return nil }
        return home + "/.local/state/wspipe/history"
    }

    // MARK: reading

    /// The newest `limit` entries, oldest first; a missing file is an empty
    /// history, any other failure a warning.
    mutating func load() -> (entries: [String], warning: String?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return ([], nil) }
            return ([], failure("cannot read"))
        }
        defer { _ = close(fd) }
        guard let bytes = Self.readTail(fd) else { return ([], failure("cannot read")) }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        lineCount = lines.count
        if lines.count > limit { lines.removeFirst(lines.count - limit) }
        return (lines.map { Self.unescape($0) }, nil)
    }

    /// The whole file, or its last `maxReadBytes` bytes from the first line
    /// that starts within them.
    private static func readTail(_ fd: Int32) -> [UInt8]? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        var skipFirstLine = false
        if Int(st.st_size) > maxReadBytes {
            guard lseek(fd, off_t(-maxReadBytes), SEEK_END) >= 0 else { return nil }
            skipFirstLine = true
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]); continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            break
        }
        if skipFirstLine, let firstBreak = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(...firstBreak) }
        return bytes
    }

    // MARK: writing

    /// Appends `entry` as one line; when the file has grown to twice the
    /// limit, rewrites it with `entries` instead (the in-memory history,
    /// newest last, `entry` included).
    mutating func append(_ entry: String, entries: [String]) -> String? {
        if lineCount + 1 > 2 * limit { return rewrite(entries) }
        var line = Self.escape(entry)
        line.append(0x0A)
        guard ensureDirectory() else { return failure("cannot create the directory of") }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return failure("cannot write") }
        defer { _ = close(fd) }
        // One write(2) per entry: with O_APPEND, two sessions' lines never interleave.
        guard Self.writeAll(fd, line) else { return failure("cannot write") }
        lineCount += 1
        return nil
    }

    private mutating func rewrite(_ entries: [String]) -> String? {
        guard ensureDirectory() else { return failure("cannot create the directory of") }
        let temporary = path + ".tmp.\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return failure("cannot write") }
        var bytes: [UInt8] = []
        for entry in entries.suffix(limit) {
            bytes.append(contentsOf: Self.escape(entry))
            bytes.append(0x0A)
        }
        let written = Self.writeAll(fd, bytes)
        _ = close(fd)
        guard written, rename(temporary, path) == 0 else {
            _ = unlink(temporary)
            return failure("cannot write")
        }
        lineCount = min(entries.count, limit)
        return nil
    }

    /// mkdir -p of the file's directory, new directories with mode 0700.
    private func ensureDirectory() -> Bool {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return true }
        let directory = String(path[..<slash])
        var prefix = ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            return false
        }
        return true
    }

    /// The first failure becomes a warning naming the file and the reason;
    /// later ones say nothing.
    private mutating func failure(_ what: String) -> String? {
        let reason = String(cString: strerror(errno))
        guard !warned else { return nil }
        warned = true
        return "history: \(what) \(TerminalText.escapingControls(path)): \(reason) (history kept for this session only)"
    }

    // MARK: escaping

    static func escape(_ entry: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entry.utf8.count)
        for b in entry.utf8 {
            switch b {
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            default: out.append(b)
            }
        }
        return out
    }

    /// The inverse of `escape`; a backslash before anything else is kept.
    static func unescape(_ line: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        var escaped = false
        for b in line {
            if escaped {
                switch b {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case 0x5C: out.append(0x5C)
                default: out.append(contentsOf: [0x5C, b])
                }
                escaped = false
            } else if b == 0x5C {
                escaped = true
            } else {
                out.append(b)
            }
        }
        if escaped { out.append(0x5C) }
        return String(decoding: out, as: UTF8.self)
    }
}
