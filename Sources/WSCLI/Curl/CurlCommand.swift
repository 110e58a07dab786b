import WSBridge
import WSCore
import WSTransport
import WSTerminal
import WSMessages
import WSConnect

/// `wspipe curl [--print] CURL_ARGUMENTS... [-- OPTIONS]` (wspipe(1): FROM
/// THE BROWSER): a curl command as the browser's DevTools copy it ("Copy as
/// cURL"), read with curl's meanings and run as wspipe would, with the
/// wspipe OPTIONS after `--`; or printed as a wspipe command line.
///
/// The command comes as arguments (pasted after `wspipe curl` in a shell,
/// which has already taken its quotes off), or as text: `-` reads it from
/// stdin, and one argument holding a whole command ("$(xclip -o)") is read
/// the same way. Text is cut into words as bash or cmd would (`CommandText`).
enum CurlCommand {
    /// The most a command read from stdin may hold.
    static let textLimit = 1 << 20

    static func run(_ args: [String]) -> ExitStatus {
        var curlArgs = args
        var wspipeArgs: [String] = []
        if let end = args.firstIndex(of: "--") {
            curlArgs = Array(args[..<end])
            wspipeArgs = Array(args[(end + 1)...])
        }
        if curlArgs == ["--help"] || curlArgs == ["-h"] {
            App.writeFD(1, help())
            return .success
        }
        let printOnly = curlArgs.contains("--print")
        curlArgs.removeAll { $0 == "--print" }
        let translation: CurlTranslation
        do {
            translation = try CurlTranslation(try words(curlArgs))
        } catch {
            return usageError(error.message)
        }
        if printOnly { return print(translation, wspipeArgs) }
        return App.run(translation.arguments + wspipeArgs, notes: translation.notes)
    }

    /// Where curl's passwords are among `args` (-u/--user, -U/--proxy-user,
    /// and wspipe's own after `--`): index and byte offset of the value, for
    /// `App` to blank them in argv. A command given as one argument, or on
    /// stdin, is not looked into.
    static func secretArguments(_ args: [String]) -> [(index: Int, offset: Int)] {
        var secrets: [(index: Int, offset: Int)] = []
        let end = args.firstIndex(of: "--") ?? args.endIndex
        for (i, arg) in args[..<end].enumerated() {
            if ["-u", "--user", "-U", "--proxy-user"].contains(arg) {
                if i + 1 < end { secrets.append((i + 1, 0)) }
            } else if let long = ["--user=", "--proxy-user="].first(where: { arg.hasPrefix($0) }) {
                secrets.append((i, long.utf8.count))
            } else if arg.hasPrefix("-u") || arg.hasPrefix("-U"), !arg.hasPrefix("--"), arg.utf8.count > 2 {
                secrets.append((i, 2))
            }
        }
        if end < args.endIndex {
            let first = end + 1
            secrets += ArgumentParser.secretArguments(Array(args[first...])).map { ($0.index + first, $0.offset) }
        }
        return secrets
    }

    /// The curl command's words.
    static func words(_ args: [String]) throws(UsageError) -> [String] {
        guard !args.isEmpty else { throw UsageError("curl: no curl command (paste it after 'wspipe curl', or give - to read it from stdin)") }
        var text: String? = nil
        if args == ["-"] {
            text = try readCommand()
        } else if args.count == 1, let only = args.first, only.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r\n" }),
                  only.drop(while: { $0 == " " || $0 == "\n" }).lowercased().hasPrefix("curl") {
            text = only
        }
        guard let text else { return args }
        do {
            return try CommandText.words(text)
        } catch {
            throw UsageError("curl: \(error.message)")
        }
    }

    /// The command from stdin, read a byte at a time up to the end of the
    /// line that completes it (no quote open, no line continued), so that
    /// the rest of stdin is the session's: at a terminal, the interactive
    /// mode starts once the command is pasted; in a pipe, the lines after it
    /// are messages.
    static func readCommand() throws(UsageError) -> String {
        if StdioMode.isTerminal(0) {
            App.writeFD(2, "wspipe curl: paste the command (\"Copy as cURL\"), then Enter\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < textLimit {
            switch withUnsafeMutableBytes(of: &byte, { FD.read(0, into: $0) }) {
            case .bytes: bytes.append(byte)
            case .wouldBlock: FD.waitUntilReady(0, .read); continue
            case .eof: return CommandText.text(bytes)
            case .error(let error): throw UsageError("curl: reading stdin: \(error.reason)")
            }
            if byte == 10, CommandText.isComplete(CommandText.text(bytes)) { return CommandText.text(bytes) }
        }
        throw UsageError("curl: the command on stdin is larger than 1 MiB")
    }

    // MARK: --print

    /// The wspipe command line, one flag a line as DevTools writes curl's;
    /// the secrets go to files of mode 0600 named after the host, which the
    /// command reads (so they stay out of the shell's history and ps).
    static func print(_ translation: CurlTranslation, _ wspipeArgs: [String]) -> ExitStatus {
        let url = translation.url ?? ""
        let base = fileBase(url)
        var lines: [[String]] = [["wspipe", url]]
        var headerLines: [String] = []
        var proxyUser: String? = nil
        var userHeader: String? = nil
        for item in translation.items {
            switch item {
            case .flag(let long, let value): lines.append(["--" + long] + (value.map { [$0] } ?? []))
            case .secretHeader(let name, let value): headerLines.append("\(name): \(value)")
            case .user(let credentials): userHeader = "Authorization: Basic " + Base64.encode(Array(credentials.utf8))
            case .proxyUser(let credentials): proxyUser = credentials
            }
        }
        // A header given already authorizes (as --user would yield to it).
        if let userHeader, !headerLines.contains(where: { $0.lowercased().hasPrefix("authorization:") }) {
            headerLines.append(userHeader)
        }
        var written: [String] = []
        if !headerLines.isEmpty {
            let path = base + ".headers"
            if let failure = writeSecret(path, headerLines.joined(separator: "\n") + "\n") { return failure }
            lines.append(["--header-file", path])
            written.append("\(path) (\(Set(headerLines.map { $0.prefix { $0 != ":" } }).sorted().joined(separator: ", ")))")
        }
        if let proxyUser {
            let path = base + ".proxy-user"
            if let failure = writeSecret(path, proxyUser + "\n") { return failure }
            lines.append(["--proxy-user-file", path])
            written.append("\(path) (the proxy's password)")
        }
        if !wspipeArgs.isEmpty { lines.append(wspipeArgs) }
        // -v among curl's options or wspipe's after --: the notes, as a run would say them.
        let verbose = translation.verbose || wspipeArgs.contains {
            $0 == "--verbose" || ($0.count > 1 && $0.hasPrefix("-") && $0.dropFirst().allSatisfy { $0 == "v" })
        }
        let log = Diagnostics(verbosity: verbose ? 1 : 0, quiet: false)
        for note in translation.notes { log.info(note) }
        if !written.isEmpty { log.warning("wrote with mode 0600: " + written.joined(separator: ", ")) }
        let text = lines.map { $0.map(ShellQuote.word).joined(separator: " ") }.joined(separator: " \\\n  ")
        App.writeFD(1, text + "\n")
        return .success
    }

    /// The files' name: the URL's host, in the current directory.
    static func fileBase(_ url: String) -> String {
        let host = (try? WebSocketURL(parsing: url))?.host ?? "wspipe"
        return String(host.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" })
    }

    /// A file only its owner can read, replaced whole; nil when written.
    static func writeSecret(_ path: String, _ text: String) -> ExitStatus? {
        guard let error = PrivateFile.replace(path, with: Array(text.utf8)) else { return nil }
        App.writeFD(2, "wspipe: \(TerminalEscaping.escaping(path)): \(error.reason)\n")
        return .runtimeError
    }

    static func usageError(_ message: String) -> ExitStatus {
        App.writeFD(2, "wspipe: \(TerminalEscaping.escaping(message))\nTry 'wspipe curl --help' for more information.\n")
        return .usage
    }

    // MARK: Help

    /// `wspipe curl --help`: what is read, from the option table.
    static func help(width: Int = 80) -> String {
        func names(_ keep: (CurlOption.Meaning) -> Bool) -> String {
            CurlOption.table.filter { keep($0.meaning) }
                .map { option in (option.short.map { "-\($0), " } ?? "") + "--" + option.long }
                .joined(separator: ", ")
        }
        let honoured = names {
            switch $0 { case .dropped, .refused: return false; default: return true }
        }
        let dropped = names { if case .dropped = $0 { return true } else { return false } }
        var lines = [
            "Usage: wspipe curl [--print] CURL_ARGUMENTS... [-- OPTIONS]",
            "       wspipe curl [--print] - [-- OPTIONS]",
            "",
        ]
        let paragraphs = [
            "Runs a curl command as the browser's DevTools copy a WebSocket request (\"Copy as cURL\", "
                + "bash or cmd), with curl's meanings, and then as wspipe would with the OPTIONS after --. "
                + "The leading curl is optional; - reads the command from stdin (the lines after it are "
                + "the messages).",
            "Headers: Origin and User-Agent become --origin and --user-agent, Sec-WebSocket-Protocol "
                + "--protocol, Sec-WebSocket-Extensions: permessage-deflate --compress; those the "
                + "handshake makes itself (Sec-WebSocket-Key, Sec-WebSocket-Version, Upgrade, Connection, "
                + "Host) and Accept-Encoding are dropped, and -v says so.",
            "curl options read: " + honoured + ".",
            "Dropped (nothing to do): " + dropped + ". Any other option is refused (exit status 2).",
            "--print writes the wspipe command line instead, its Cookie and Authorization headers moved "
                + "to HOST.headers (mode 0600) in the current directory.",
        ]
        for paragraph in paragraphs {
            lines += HelpRenderer.wrap(paragraph, width: width, first: "", rest: "")
            lines.append("")
        }
        lines += ["Example:", "  wspipe curl 'wss://app.example.com/ws' -H 'Origin: https://app.example.com' \\",
                  "    -b 'sid=...' -H 'Sec-WebSocket-Key: ...' --compressed -- -n --events"]
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Words for a POSIX shell: as they are when nothing in them is special,
/// else in single quotes ($'...' for control characters).
enum ShellQuote {
    static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && (Character($0).isLetter || Character($0).isNumber || "@%+=:,./_-".unicodeScalars.contains($0))
        }
        if plain { return text }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            var quoted = "$'"
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": quoted += "\\\\"
                case "'": quoted += "\\'"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    let hex = String(scalar.value, radix: 16)
                    quoted += "\\x" + (hex.count == 1 ? "0" : "") + hex
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "'"
        }
        return "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
