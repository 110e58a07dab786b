import WSCore
import WSJSON
import WSTerminal
import WSMessages

/// The slash commands (wspipe(1): INTERACTIVE MODE; InteractiveHelp lists
/// them): what each does to the transcript, the filter, the saved messages,
/// and which actions it asks of the session.
extension InteractiveConsole {
    func run(_ command: SlashCommand, line: String, above: inout [UInt8], actions: inout [Action]) {
        switch command {
        case .ping(let text): actions.append(.ping(Array(text.utf8)))
        case .close(let code, let reason): actions.append(.close(code: code, reason: reason))
        case .binary where options.socketIO, .text where options.socketIO:
            // Socket.IO has no packet for a bare message: the session could only refuse it.
            let name = line.split(separator: " ").first.map(String.init) ?? "/text"
            _ = refuse("\(name): --socketio sends event lines, not bare messages "
                       + #"(binary data goes in an event's data as {"$binary":"..."})"#)
            return
        case .binary(let path): actions.append(.sendFile(path: expandingHome(path)))
        case .text(let text): send(.sendText(Array(text.utf8)), above: &above, actions: &actions)
        case .reconnect: actions.append(.reconnect)
        case .quit: actions.append(.quit)
        case .help: above += formatter.help(at: options.clock())
        case .filter(let expression):
            guard setFilter(expression, above: &above) else { return }
        case .find(let text): above += find(text)
        case .show(let number):
            guard let shown = show(number) else { return }
            above += shown
        case .resend(let number):
            guard resend(number, above: &above, actions: &actions) else { return }
        case .pretty, .compact:
            formatter.mode = command == .pretty ? .pretty : .compact
            above += info(command == .pretty
                          ? "messages on one row when they fit, else pretty-printed (/compact: one row each)"
                          : "every message on one row (/show N prints one whole; /pretty to go back)")
        case .save(let name, let message):
            guard save(name, message, above: &above) else { return }
        case .send(let name):
            if let name {
                guard sendSaved(name, line: line, above: &above, actions: &actions) else { return }
            } else {
                guard listSaved(above: &above) else { return }
            }
        }
        accept(line, above: &above)
    }

    private func info(_ text: String) -> [UInt8] {
        formatter.note(.info(text), at: options.clock())
    }

    /// A command that cannot run: the line stays, with why under it.
    private func refuse(_ message: String) -> Bool {
        editor.reject(message, atUTF8Offset: Int.max)
        return false
    }

    // MARK: /filter

    private func setFilter(_ expression: String?, above: inout [UInt8]) -> Bool {
        guard let expression else {
            above += info(filter.map { "filter: \($0.source) (\(status.hidden) hidden); /filter off clears it" }
                          ?? "no filter: every message is shown (/filter EXPR; /help says what EXPR can be)")
            return true
        }
        if expression == "off" {
            above += info(filter == nil ? "no filter to clear" : "filter off: every message is shown (\(status.hidden) were hidden)")
            filter = nil
            status.filter = nil
            status.hidden = 0
            return true
        }
        switch MessageFilter.parse(expression, typeKey: options.typeKey) {
        case .failure(let error):
            return refuse("/filter: \(error.message)")
        case .success(let parsed):
            filter = parsed
            status.filter = parsed.source
            status.hidden = 0
            above += info("filter: \(parsed.source); hidden messages are counted, /filter off shows them again")
            return true
        }
    }

    // MARK: /find, /show, /resend

    /// At most this many messages are listed by /find.
    static let maxFound = 50

    private func find(_ text: String) -> [UInt8] {
        let wanted = Array(text.utf8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let found = transcript.filter { entry in
            text.isEmpty || (!entry.binary && entry.payload.withUnsafeBytes {
                MessageFilter.containsText($0, lowercasedText: wanted)
            })
        }
        let limit = text.isEmpty ? 20 : Self.maxFound
        let listed = found.suffix(limit)
        var heading: String
        if text.isEmpty {
            heading = found.isEmpty ? "no message kept yet" : "the last \(listed.count) messages:"
        } else {
            let quoted = "\"" + TerminalEscaping.escaping(text) + "\""
            heading = found.isEmpty ? "no message kept contains \(quoted)"
                : "\(found.count) message\(found.count == 1 ? "" : "s") contain\(found.count == 1 ? "s" : "") \(quoted)"
                    + (found.count > limit ? "; the newest \(limit):" : ":")
        }
        if found.isEmpty, let oldest = transcript.oldestNumber, oldest > 1 {
            heading += " (messages before #\(oldest) are no longer kept: --history-size)"
        }
        return formatter.listing(heading: heading, entries: Array(listed), at: options.clock())
    }

    private func show(_ number: Int) -> [UInt8]? {
        guard let entry = transcript.entry(number) else {
            _ = refuse(number >= transcript.nextNumber ? "/show: there is no message #\(number) yet"
                       : "/show: message #\(number) is no longer kept (--history-size)")
            return nil
        }
        return entry.payload.withUnsafeBytes {
            formatter.message($0, binary: entry.binary, direction: entry.direction, at: entry.time,
                              number: entry.number, full: true)
        }
    }

    private func resend(_ number: Int?, above: inout [UInt8], actions: inout [Action]) -> Bool {
        let entry: Transcript.Entry
        if let number {
            guard let found = transcript.entry(number) else {
                return refuse(number >= transcript.nextNumber ? "/resend: there is no message #\(number) yet"
                              : "/resend: message #\(number) is no longer kept (--history-size)")
            }
            guard found.direction == .sent else {
                return refuse("/resend: message #\(number) was received, not sent (/find out lists those sent)")
            }
            entry = found
        } else {
            guard let last = transcript.lastSent else { return refuse("/resend: no message sent yet") }
            entry = last
        }
        if options.codec != nil && !entry.binary, case .success(let sends) = messages(entry.payload) {
            // --codec: a sent message is kept as its line (see `send`).
            for action in sends { send(action, above: &above, actions: &actions) }
            return true
        }
        send(entry.binary ? .sendBinary(entry.payload) : .sendText(entry.payload), above: &above, actions: &actions)
        return true
    }

    // MARK: /save, /send

    private var savedMessages: SavedMessages? {
        options.savedMessagesPath.map(SavedMessages.init(path:))
    }

    private func save(_ name: String, _ message: String?, above: inout [UInt8]) -> Bool {
        guard let file = savedMessages else {
            return refuse("/save: no file to save in (set XDG_CONFIG_HOME or HOME)")
        }
        let text: String
        if let message {
            if options.format == .json, let error = checkTemplate(message) {
                return refuse("/save: \(error); not saved")
            }
            text = message
        } else {
            guard let lastSent else { return refuse("/save: no message sent yet (/save NAME MESSAGE saves MESSAGE)") }
            text = Self.typed(lastSent, format: options.format)
        }
        if let error = file.save(name: name, message: text) { return refuse("/save: \(error)") }
        above += info("saved as \(TerminalEscaping.escaping(name)) in \(TerminalEscaping.escaping(file.path)); "
                      + "/send \(TerminalEscaping.escaping(name)) sends it")
        return true
    }

    /// A message sent, as it would be typed to send it again: in JSON mode,
    /// binary as its `$binary` envelope and text that is not JSON (/text,
    /// --lenient) as its `$text` one.
    private static func typed(_ sent: (payload: [UInt8], binary: Bool), format: LineFormat) -> String {
        guard format == .json else { return String(decoding: sent.payload, as: UTF8.self) }
        let isJSON = sent.payload.withUnsafeBytes { InteractiveConsole.isJSON($0) }
        if !sent.binary && isJSON { return String(decoding: sent.payload, as: UTF8.self) }
        var envelope = Array((sent.binary ? #"{"$binary":"# : #"{"$text":"#).utf8)
        if sent.binary {
            envelope += Array(("\"" + Base64.encode(sent.payload) + "\"").utf8)
        } else {
            sent.payload.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &envelope) }
        }
        envelope.append(UInt8(ascii: "}"))
        return String(decoding: envelope, as: UTF8.self)
    }

    /// Why a message to save could not become JSON whatever its variables
    /// hold (a malformed ${...}, a ${line}, JSON broken around them), nil
    /// when it can (TemplateCheck). Any ${NAME} is taken: the run that sends
    /// it may have the --capture this one has not; and any ${env:NAME}: it
    /// is read when the message is sent.
    private func checkTemplate(_ message: String) -> String? {
        do throws(TemplateError) {
            _ = try MessageTemplate(message, scope: Self.templateScope, captures: Self.variableNames(in: message),
                                    environment: { _ in "" })
            return nil
        } catch {
            return error.description
        }
    }

    /// A saved message's variables: the --capture values and ${.KEYPATH}
    /// of the last message received, beside ${seq} and ${now_ms}.
    static let templateScope: TemplateScope = [.captures, .message]

    /// The NAMEs of the ${NAME} in `text`.
    private static func variableNames(in text: String) -> [String] {
        let bytes = Array(text.utf8)
        var names: [String] = []
        var i = 0
        while i + 1 < bytes.count {
            guard bytes[i] == UInt8(ascii: "$"), bytes[i + 1] == UInt8(ascii: "{"),
                  let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                i += 1
                continue
            }
            let body = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
            if MessageTemplate.isIdentifier(body) && !TemplateVariable.builtInNames.contains(body) { names.append(body) }
            i = close + 1
        }
        return names
    }

    /// A saved message with its variables filled in (JSON mode; in the raw
    /// modes a message is sent as saved), or why it cannot be.
    private func filled(_ message: String) -> Result<[UInt8], Rejection> {
        guard options.format == .json else { return .success(Array(message.utf8)) }
        let template: MessageTemplate
        do throws(TemplateError) {
            template = try MessageTemplate(message, scope: Self.templateScope, captures: options.templates.captureNames,
                                           environment: options.templates.environment)
        } catch {
            return .failure(Rejection(message: error.description, offset: Int.max))
        }
        var values = TemplateValues(seq: template.usesSeq ? options.templates.nextSequence() : 0,
                                    nowMs: options.templates.nowMillis())
        values.captures = options.templates.captures()
        guard let lastReceived else { return .success(template.render(values)) }
        return .success(lastReceived.withUnsafeBytes { message in
            values.message = message
            return template.render(values)
        })
    }

    private func sendSaved(_ name: String, line: String, above: inout [UInt8], actions: inout [Action]) -> Bool {
        guard let file = savedMessages else { return refuse("/send: no saved messages (set XDG_CONFIG_HOME or HOME)") }
        let contents: SavedMessages.Contents
        switch file.load() {
        case .failure(let error): return refuse("/send: \(error)")
        case .success(let loaded): contents = loaded
        }
        let safeName = TerminalEscaping.escaping(name)
        guard let saved = contents.message(named: name) else {
            return refuse("/send: no saved message \(safeName) (/send alone lists them)")
        }
        let sends: [Action]
        switch filled(saved).flatMap({ messages($0) }) {
        case .failure(let rejection): return refuse("/send \(safeName): \(rejection.message)")
        case .success(let made): sends = made
        }
        for action in sends { send(action, above: &above, actions: &actions) }
        return true
    }

    private func listSaved(above: inout [UInt8]) -> Bool {
        guard let file = savedMessages else { return refuse("/send: no saved messages (set XDG_CONFIG_HOME or HOME)") }
        switch file.load() {
        case .failure(let error):
            return refuse("/send: \(error)")
        case .success(let contents):
            var lines = contents.names.map { name in
                TerminalEscaping.escaping(name) + "  " + TerminalEscaping.escaping(contents.message(named: name) ?? "")
            }
            if lines.isEmpty { lines = ["no saved message yet (/save NAME keeps the last message sent)"] }
            if !contents.unreadable.isEmpty {
                lines.append("skipped line\(contents.unreadable.count == 1 ? "" : "s") "
                             + contents.unreadable.map(String.init).joined(separator: ", ") + " of "
                             + TerminalEscaping.escaping(file.path) + #": not {"name":...,"message":...}"#)
            }
            above += formatter.note(text: lines.joined(separator: "\n"), at: options.clock())
            return true
        }
    }
}
