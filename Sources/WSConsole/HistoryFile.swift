import WSTerminal
import WSTransport

/// The history on disk: one entry a line, appended as each line is sent, so
/// that a crash loses nothing and two sessions at once both keep theirs.
///
/// An entry may hold line breaks (a pasted JSON value), so entries are
/// stored escaped: `\` as `\\`, LF as `\n`, CR as `\r`; every other byte as
/// it is, so the file stays readable and grep-able. What was typed can be a
/// token, so the file is kept at mode 0600, an existing one included (its
/// mode is put back when it is read and when it is written), and wspipe's
/// own directory (one named `wspipe`, as in the default path) at 0700; missing directories
/// above it are created with 0700 (XDG Base Directory spec). When it holds
/// twice `limit` lines it is rewritten with the newest `limit`. It is
/// written as a `PrivateFile` (never through a link, never a file of
/// another user's, a rewrite through a temporary file of a random name).
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
    static let fileMode: UInt32 = 0o600
    static let directoryMode: UInt32 = 0o700

    init(path: String, limit: Int) {
        self.path = path
        self.limit = max(1, limit)
    }

    /// The directory the file is in, nil for a bare name (the current directory).
    private var directory: String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The directory holding the file is wspipe's (`…/wspipe`, as in the
    /// default path), so its mode is wspipe's to keep at 0700; the
    /// directory of a file elsewhere (WSPIPE_HISTFILE=/tmp/h) is left alone.
    private var ownsDirectory: Bool {
        directory.map { $0 == "wspipe" || $0.hasSuffix("/wspipe") } ?? false
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
        let fd: Int32
        switch FD.open(path, .read) {
        case .success(let opened): fd = opened
        case .failure(let error):
            if error.isNotFound { return ([], nil) }
            return ([], failure("cannot read", error))
        }
        defer { FD.close(fd) }
        if let error = keepPrivate(fd) { return ([], failure("cannot protect", error)) }
        let bytes: [UInt8]
        switch Self.readTail(fd) {
        case .success(let read): bytes = read
        case .failure(let error): return ([], failure("cannot read", error))
        }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        lineCount = lines.count
        if lines.count > limit { lines.removeFirst(lines.count - limit) }
        return (lines.map { Self.unescape($0) }, nil)
    }

    /// The whole file, or its last `maxReadBytes` bytes from the first line
    /// that starts within them.
    private static func readTail(_ fd: Int32) -> Result<[UInt8], IOError> {
        var skipFirstLine = false
        if let size = FD.status(fd)?.size, size > maxReadBytes {
            if let error = FD.seek(fd, toBeforeEnd: maxReadBytes) { return .failure(error) }
            skipFirstLine = true
        }
        return FD.readAll(fd).map { read in
            var bytes = read
            if skipFirstLine, let firstBreak = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(...firstBreak) }
            return bytes
        }
    }

    /// The file (open as `fd`) back to 0600, and wspipe's directory to
    /// 0700, when something else changed them (or an older wspipe made them).
    private func keepPrivate(_ fd: Int32) -> IOError? {
        if let mode = FD.status(fd)?.permissions, mode != Self.fileMode,
           let error = FD.setPermissions(fd, Self.fileMode) {
            return error
        }
        guard ownsDirectory, let directory, let mode = FileSystem.permissions(directory),
              mode != Self.directoryMode else { return nil }
        return FileSystem.setPermissions(directory, Self.directoryMode)
    }

    // MARK: writing

    /// Appends `entry` as one line; when the file has grown to twice the
    /// limit, rewrites it with `entries` instead (the in-memory history,
    /// newest last, `entry` included).
    mutating func append(_ entry: String, entries: [String]) -> String? {
        if lineCount + 1 > 2 * limit { return rewrite(entries) }
        var line = Self.escape(entry)
        line.append(0x0A)
        if let error = ensureDirectory() { return failure("cannot create the directory of", error) }
        let fd: Int32
        switch PrivateFile.openForAppending(path) {
        case .success(let opened): fd = opened
        case .failure(let error): return failure("cannot write", error)
        }
        defer { FD.close(fd) }
        if let error = keepPrivate(fd) { return failure("cannot protect", error) }
        // One write(2) per entry: with O_APPEND, two sessions' lines never interleave.
        if let error = line.withUnsafeBytes({ FD.writeAll(fd, $0) }) { return failure("cannot write", error) }
        lineCount += 1
        return nil
    }

    /// The newest `limit` entries as the whole file, through a `PrivateFile`
    /// (a temporary file of a random name, renamed over it).
    private mutating func rewrite(_ entries: [String]) -> String? {
        if let error = ensureDirectory() { return failure("cannot create the directory of", error) }
        var bytes: [UInt8] = []
        for entry in entries.suffix(limit) {
            bytes.append(contentsOf: Self.escape(entry))
            bytes.append(0x0A)
        }
        if let error = PrivateFile.replace(path, with: bytes) { return failure("cannot write", error) }
        lineCount = min(entries.count, limit)
        return nil
    }

    /// mkdir -p of the file's directory, new directories with mode 0700.
    private func ensureDirectory() -> IOError? {
        guard let directory else { return nil }
        return FileSystem.makeDirectories(directory, permissions: Self.directoryMode)
    }

    /// The first failure becomes a warning naming the file and the reason;
    /// later ones say nothing.
    private mutating func failure(_ what: String, _ error: IOError) -> String? {
        guard !warned else { return nil }
        warned = true
        return "history: \(what) \(TerminalEscaping.escaping(path)): \(error.reason) (history kept for this session only)"
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
