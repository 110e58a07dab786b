import WSJSON
import WSTerminal
import WSTransport

/// The saved messages of `/save` and `/send` (wspipe(1): INTERACTIVE MODE),
/// in `$XDG_CONFIG_HOME/wspipe/messages.ndjson`: one
/// `{"name":"NAME","message":"TEXT"}` a line, TEXT the message as typed
/// (a JSON string: it may hold `${…}` templates, which are not JSON yet).
/// The file is a user's configuration, to edit by hand as well: it is read
/// again at every use, and a line that cannot be read is skipped (and
/// named), never dropped: `/save` writes back every line it did not replace.
///
/// The file is created with mode 0600 (a saved message may hold a token) in
/// a directory made with 0700, and replaced whole through a temporary file
/// and rename(2), so that a reader never sees half of it, under a lock on
/// the file (FileLock), so that a save never undoes another's.
struct SavedMessages {
    let path: String
    /// A file larger than this is not read (it is not one a person wrote).
    static let maxFileBytes = 4 << 20

    /// `$XDG_CONFIG_HOME/wspipe/messages.ndjson`, else
    /// `~/.config/wspipe/messages.ndjson` (XDG Base Directory: a relative
    /// XDG_CONFIG_HOME is ignored); nil without a usable home either.
    static func defaultPath(configHome: String?, home: String?) -> String? {
        if let configHome, configHome.hasPrefix("/") { return configHome + "/wspipe/messages.ndjson" }
        guard let home, !home.isEmpty else { return nil }
        return home + "/.config/wspipe/messages.ndjson"
    }

    struct Contents {
        /// Name and message, in the file's order (a name twice: the last wins).
        var messages: [(name: String, message: String)] = []
        /// Each line as it is in the file, with the name it holds (nil when unreadable).
        var lines: [(text: [UInt8], name: String?)] = []
        /// 1-based numbers of the lines that could not be read.
        var unreadable: [Int] = []

        func message(named name: String) -> String? {
            messages.last { $0.name == name }?.message
        }

        var names: [String] {
            var seen: [String] = []
            for entry in messages where !seen.contains(entry.name) { seen.append(entry.name) }
            return seen
        }
    }

    /// The file's saved messages; a missing file has none.
    func load() -> Result<Contents, SavedMessagesError> {
        switch FD.readFile(path, limit: Self.maxFileBytes) {
        case .success(let bytes):
            return bytes.count > Self.maxFileBytes ? .failure(.tooLarge(path: path)) : .success(Self.parse(bytes))
        case .failure(let error) where error.isNotFound: return .success(Contents())
        case .failure(let error): return .failure(.cannotRead(path: path, reason: error.reason))
        }
    }

    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let text = Array(line.last == 0x0D ? line.dropLast() : line)
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                if !text.isEmpty { contents.lines.append((text, nil)) }
                continue
            }
            guard let entry = entry(text) else {
                contents.lines.append((text, nil))
                contents.unreadable.append(index + 1)
                continue
            }
            contents.messages.append(entry)
            contents.lines.append((text, entry.name))
        }
        return contents
    }

    /// `{"name":"…","message":"…"}`: both strings; other members are ignored.
    private static func entry(_ line: [UInt8]) -> (name: String, message: String)? {
        line.withUnsafeBytes { raw -> (String, String)? in
            guard case .valid = JSONScanner.validate(raw),
                  let name = string(at: "name", in: raw), let message = string(at: "message", in: raw),
                  !name.isEmpty else { return nil }
            return (name, message)
        }
    }

    private static func string(at key: String, in json: UnsafeRawBufferPointer) -> String? {
        guard let range = JSONScanner.valueRange(atPath: [Array(key.utf8)], in: json), json[range.lowerBound] == 0x22 else {
            return nil
        }
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[range]), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// One line of the file.
    static func line(name: String, message: String) -> [UInt8] {
        var out = Array(#"{"name":"#.utf8)
        Array(name.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        out += Array(#","message":"#.utf8)
        Array(message.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        out += Array("}\n".utf8)
        return out
    }

    /// Saves `message` under `name`: a line of that name is replaced in
    /// place (the first; later ones of the same name go), else one is added.
    /// The file is read and replaced under its lock (FileLock), so that two
    /// sessions saving at the same moment both keep their message: the
    /// second reads the file the first wrote.
    func save(name: String, message: String) -> SavedMessagesError? {
        if let error = makeDirectory() { return .cannotWrite(path: path, reason: error.reason) }
        switch FileLock.whileLocked(path, creatingWithMode: 0o600, { replace(name: name, message: message) }) {
        case .success(let error): return error
        case .failure(let error): return .cannotWrite(path: path, reason: error.reason)
        }
    }

    /// The read-modify-write of `save`, the lock held.
    private func replace(name: String, message: String) -> SavedMessagesError? {
        let contents: Contents
        switch load() {
        case .success(let loaded): contents = loaded
        case .failure(let error): return error
        }
        let new = Self.line(name: name, message: message)
        var out: [UInt8] = []
        var replaced = false
        for line in contents.lines {
            if line.name == name {
                if !replaced { out += new }
                replaced = true
                continue
            }
            out += line.text
            out.append(0x0A)
        }
        if !replaced { out += new }
        if let error = PrivateFile.replace(path, with: out) {
            return .cannotWrite(path: path, reason: error.reason)
        }
        return nil
    }

    /// mkdir -p of the file's directory, new directories 0700 (XDG Base Directory).
    private func makeDirectory() -> IOError? {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
        return FileSystem.makeDirectories(String(path[..<slash]), permissions: 0o700)
    }
}

enum SavedMessagesError: Error, Equatable, CustomStringConvertible {
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case tooLarge(path: String)

    var description: String {
        switch self {
        case .cannotRead(let path, let reason): return "cannot read \(TerminalEscaping.escaping(path)): \(reason)"
        case .cannotWrite(let path, let reason): return "cannot write \(TerminalEscaping.escaping(path)): \(reason)"
        case .tooLarge(let path):
            return "\(TerminalEscaping.escaping(path)) is larger than \(SavedMessages.maxFileBytes >> 20) MiB; not read"
        }
    }
}
