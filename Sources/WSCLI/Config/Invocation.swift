import WSBridge
import WSTransport

/// The command line with the config files in front of it (wspipe(1): CONFIG
/// FILES): the tokens the parser applies, lowest precedence first, and what
/// -v says about the files.
///
/// The layers, each overriding those before it: the default file's lines
/// outside any section, then those of each -K file, then the profile (the
/// `[NAME]` sections of `--profile NAME`, or the one whose `url` prefix
/// matches the URL best), then the command line. A later layer's flag
/// replaces an earlier layer's value of the same flag, and of a flag it
/// conflicts with (`--binary` on the command line drops a file's `text`);
/// repeatable flags add up, except that a header, route, capture or answer
/// replaces the earlier one of the same name. A line the run cannot use (a
/// client setting with --listen, `ack-timeout` without `ack`) is skipped and
/// -v says so: a file holds settings for many runs.
///
/// Nothing is read for --help, --version and --generate, and the default
/// file only for a run with a URL (a server reads only -K files): so a
/// broken default file never stops the help, and never changes a server.
struct Invocation {
    var tokens: [ArgumentToken]
    /// For -v, once the options say how verbose to be.
    var notes: [String] = []

    /// The largest config file read (curl allows 10 MB a line; this is plenty).
    static let sizeLimit = 1 << 20

    static func assemble(_ args: [String], _ environment: Environment, terminal: Bool) throws(UsageError) -> Invocation {
        let commandLine = ArgumentParser.tokens(args)
        let scan = CommandLineScan(commandLine)
        if scan.printsOnly { return Invocation(tokens: commandLine) }
        var invocation = Invocation(tokens: [])
        var files: [ConfigFile] = []
        if !scan.noConfig && !scan.listens, let (path, optional) = defaultPath(environment) {
            if let file = try read(path, optional: optional) {
                files.append(file)
                invocation.notes.append("read config file \(path)")
            }
        }
        for path in scan.configFiles {
            if let file = try read(path, optional: false) {
                files.append(file)
                invocation.notes.append("read config file \(path) (-K)")
            }
        }
        let profile = try choose(scan, files, &invocation.notes)
        var layers = files.map { file in file.topLevel.map { token(file, $0) } }
        if let section = profile.first?.1 {
            layers.append(profile.flatMap { file, section in section.lines.map { token(file, $0) } })
            if scan.url == nil && !scan.listens && scan.profile != nil, let url = section.urls.first {
                invocation.notes.append("URL \(url) from [\(section.name)]")
                layers.append([.positional(url)])
            }
        }
        layers.append(commandLine)
        invocation.tokens = merge(layers)
        invocation.tokens = usable(invocation.tokens, terminal: terminal, &invocation.notes)
        return invocation
    }

    // MARK: Which files

    /// WSPIPE_CONFIG when set (empty: none), else $XDG_CONFIG_HOME/wspipe/config
    /// or ~/.config/wspipe/config; `optional`: a missing file is no file.
    static func defaultPath(_ environment: Environment) -> (path: String, optional: Bool)? {
        if let named = environment.configFile { return named.isEmpty ? nil : (named, false) }
        if let base = environment.configHome { return (base + "/wspipe/config", true) }
        if let home = environment.home { return (home + "/.config/wspipe/config", true) }
        return nil
    }

    /// The file parsed, or nil when it is optional and missing (one failed
    /// open: all a run without a config file pays). A file others can read
    /// is refused when it holds a secret, as ssh refuses a loose key.
    static func read(_ path: String, optional: Bool) throws(UsageError) -> ConfigFile? {
        let fd: Int32
        switch FD.open(path, .read) {
        case .success(let opened): fd = opened
        case .failure(let error):
            if optional && error.isNotFound { return nil }
            throw UsageError("config file \(path): \(error.reason)")
        }
        defer { FD.close(fd) }
        guard let status = FD.status(fd), status.kind != .directory else {
            throw UsageError("config file \(path): is a directory")
        }
        let bytes: [UInt8]
        switch FD.readAll(fd, limit: sizeLimit) {
        case .success(let read): bytes = read
        case .failure(let error): throw UsageError("config file \(path): \(error.reason)")
        }
        guard bytes.count <= sizeLimit else { throw UsageError("config file \(path): larger than 1 MiB") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("config file \(path): not UTF-8 text")
        }
        let file = try ConfigFile(path: path, text: text)
        if status.permissions & 0o044 != 0, let secret = file.secretLines().first {
            let mode = String(status.permissions, radix: 8)
            throw UsageError("config file \(path): line \(secret.number) holds a header, password or cookie, "
                             + "and others can read the file (mode 0\(mode)); run: chmod 600 \(path)")
        }
        return file
    }

    // MARK: Which profile

    /// The sections that apply: all those named by --profile, or the one
    /// whose url prefix is the longest match of the URL (the last read on a tie).
    static func choose(_ scan: CommandLineScan, _ files: [ConfigFile],
                       _ notes: inout [String]) throws(UsageError) -> [(ConfigFile, ConfigFile.Section)] {
        if let name = scan.profile {
            let found = files.flatMap { file in file.sections.filter { $0.name == name }.map { (file, $0) } }
            guard !found.isEmpty else {
                var read = files.isEmpty ? "no config file was read" : "not in " + files.map(\.path).joined(separator: ", ")
                if scan.listens { read += " (a server reads only the files given with -K)" }
                throw UsageError("--profile \(name): \(read)")
            }
            notes.append("profile [\(name)] (--profile)")
            return found
        }
        guard let url = scan.url else { return try chooseForRecordings(scan, files, &notes) }
        guard let best = bestSection(for: url, files) else { return [] }
        notes.append("profile [\(best.section.name)] of \(best.file.path) (url \(best.prefix))")
        return [(best.file, best.section)]
    }

    /// The section whose url prefix is the longest match of `url`.
    static func bestSection(for url: String, _ files: [ConfigFile])
        -> (file: ConfigFile, section: ConfigFile.Section, prefix: String)? {
        var best: (file: ConfigFile, section: ConfigFile.Section, prefix: String)? = nil
        for file in files {
            for section in file.sections {
                for prefix in section.urls where URLPrefix.matches(prefix, url) && prefix.count >= (best?.prefix.count ?? 0) {
                    best = (file, section, prefix)
                }
            }
        }
        return best
    }

    /// --check without a URL connects to the URLs its recordings hold: the
    /// profile is the one they all select, as it would be were the URL
    /// given. Recordings that select different profiles (or some none) are
    /// refused: one run has one set of flags, and a profile's token must not
    /// go to another server. A file that cannot be read is left to the
    /// plan, which says what is wrong with it.
    static func chooseForRecordings(_ scan: CommandLineScan, _ files: [ConfigFile],
                                    _ notes: inout [String]) throws(UsageError) -> [(ConfigFile, ConfigFile.Section)] {
        guard !scan.checks.isEmpty, files.contains(where: { !$0.sections.isEmpty }) else { return [] }
        var chosen: [(url: String, found: (file: ConfigFile, section: ConfigFile.Section, prefix: String)?)] = []
        for pattern in scan.checks {
            for path in FileSystem.glob(pattern) {
                guard let recording = try? RecordingFile.read(path, flag: "check") else { continue }
                for number in recording.requests.keys.sorted() {
                    guard let url = recording.requests[number]?.url else { continue }
                    chosen.append((url, bestSection(for: url, files)))
                }
            }
        }
        guard let first = chosen.first else { return [] }
        func name(_ found: (file: ConfigFile, section: ConfigFile.Section, prefix: String)?) -> String {
            found.map { "[\($0.section.name)] of \($0.file.path)" } ?? "no profile"
        }
        if let other = chosen.first(where: { name($0.found) != name(first.found) }) {
            throw UsageError("--check: the recordings' URLs select different config profiles (\(first.url): "
                             + "\(name(first.found)); \(other.url): \(name(other.found))); check them in separate "
                             + "runs, or name one with --profile")
        }
        guard let best = first.found else { return [] }
        notes.append("profile [\(best.section.name)] of \(best.file.path) (url \(best.prefix), the recordings' URL)")
        return [(best.file, best.section)]
    }

    // MARK: Layers

    static func token(_ file: ConfigFile, _ line: ConfigFile.Line) -> ArgumentToken {
        .flag(line.flag, line.value, origin: "\(file.path):\(line.number)")
    }

    /// The layers flattened, each token dropping what it overrides in the
    /// layers before its own.
    static func merge(_ layers: [[ArgumentToken]]) -> [ArgumentToken] {
        var result: [ArgumentToken] = []
        for layer in layers {
            result.removeAll { earlier in
                guard case .flag(let flag, let value, _) = earlier else { return false }
                return layer.contains { later in
                    guard case .flag(let newer, let newValue, _) = later else { return false }
                    return overrides(newer, newValue, flag, value)
                }
            }
            result += layer
        }
        return result
    }

    /// Whether a later layer's `flag` replaces an earlier layer's `other`.
    static func overrides(_ flag: Flag, _ value: String, _ other: Flag, _ otherValue: String) -> Bool {
        if flag.conflicts.contains(other.long) { return true }
        // -1 and --max-messages set one value, so do -4 and -6 (which conflict anyway).
        let sameValue: Set<String> = ["one-message", "max-messages"]
        if flag.long != other.long { return sameValue.contains(flag.long) && sameValue.contains(other.long) }
        guard flag.repeatable else { return true }
        guard let key = repeatKey(flag.long, value) else { return false }
        return key == repeatKey(flag.long, otherValue)
    }

    /// What names a repeated value: a header's name, a route's VALUE, a
    /// capture's NAME, an answer's TYPE; nil where values simply add up.
    static func repeatKey(_ long: String, _ value: String) -> String? {
        switch long {
        case "header": return value.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        case "route", "capture", "answer": return value.split(separator: "=", maxSplits: 1).first.map(String.init)
        default: return nil
        }
    }

    /// The tokens without the config lines the run cannot use: those of a
    /// flag its mode refuses, or that need a flag it does not have.
    static func usable(_ tokens: [ArgumentToken], terminal: Bool, _ notes: inout [String]) -> [ArgumentToken] {
        let options = ArgumentParser.provisional(tokens)
        let mode = RunMode.of(options, stdinIsTerminal: terminal, stdoutIsTerminal: terminal)
        let given = Set(tokens.compactMap { token -> String? in
            if case .flag(let flag, _, _) = token { return flag.long }
            return nil
        })
        let servers = mode == .server || mode == .exec
        return tokens.filter { token in
            guard case .flag(let flag, _, origin: let origin?) = token else { return true }
            var why: String? = nil
            if !flag.modes.contains(mode.flagMode) {
                why = "not used in \(mode.name)"
            }
            for rule in flag.rules where why == nil {
                switch rule {
                case .requires(let other) where !given.contains(other): why = "needs --\(other)"
                case .requiresInServerMode(let other) where servers && !given.contains(other): why = "needs --\(other) with --listen"
                default: break
                }
            }
            guard let why else { return true }
            notes.append("\(origin): --\(flag.long) skipped: \(why)")
            return false
        }
    }
}

/// What the command line says about the config files, read from its tokens
/// before anything is applied.
struct CommandLineScan {
    var noConfig = false
    var configFiles: [String] = []
    var profile: String? = nil
    /// The --check patterns: without a URL, their recordings' URLs choose the profile.
    var checks: [String] = []
    /// The first positional argument: the URL a profile's prefix is matched against.
    var url: String? = nil
    var listens = false
    /// --help, --version or --generate: nothing is read.
    var printsOnly = false

    init(_ tokens: [ArgumentToken]) {
        for token in tokens {
            switch token {
            case .flag(let flag, let value, _):
                switch flag.long {
                case "no-config": noConfig = true
                case "config": configFiles.append(value)
                case "profile": profile = value
                case "check": checks.append(value)
                case "listen": listens = true
                case "help", "version", "generate": printsOnly = true
                default: break
                }
            case .positional(let arg): if url == nil { url = arg }
            case .error: break
            }
        }
    }
}

/// `url = PREFIX` in a section: which URLs select it.
enum URLPrefix {
    /// The URL starts with the prefix at a boundary: the prefix ends with
    /// '/', or the URL goes on with '/', '?' or '#' (or ends), so that
    /// wss://example.com never matches wss://example.com.evil.net or
    /// wss://example.com:8443. Scheme and host compare case-insensitively.
    static func matches(_ prefix: String, _ url: String) -> Bool {
        let prefix = normalized(prefix), url = normalized(url)
        guard url.hasPrefix(prefix) else { return false }
        if prefix.hasSuffix("/") { return true }
        guard let next = url.dropFirst(prefix.count).first else { return true }
        return next == "/" || next == "?" || next == "#"
    }

    /// Scheme and authority lowercased; the path as it is.
    static func normalized(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let pathStart = url[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        return url[..<pathStart].lowercased() + url[pathStart...]
    }
}

extension RunMode {
    /// How a note names the mode.
    var name: String {
        switch self {
        case .client: return "client mode"
        case .interactive: return "interactive mode"
        case .server: return "server mode (--listen)"
        case .exec: return "--exec mode"
        case .check: return "--check mode"
        }
    }
}
