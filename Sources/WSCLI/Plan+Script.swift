import WSBridge
import WSTransport
import WSMessages

/// The scripted peer's part of the plan (wspipe(1): SCRIPTED PEER,
/// TEMPLATES): every template parsed and checked (a usage error with its
/// position), the --replay file read, and the flags that cannot work
/// together or in this mode refused.
extension Plan {
    static func scriptOptions(_ o: Options, server: Bool) throws(UsageError) -> ScriptOptions {
        var s = ScriptOptions()
        // The common run gives none of these flags and pays for nothing here.
        guard !o.answers.isEmpty || o.heartbeat != nil || o.heartbeatTimeoutNanos != nil || o.wrap != nil
                || o.record != nil || o.replay != nil || (server && (!o.onConnect.isEmpty || o.onConnectFile != nil))
        else { return s }
        try refuseScriptConflicts(o, server: server)
        let captures: TemplateScope = server ? [] : .captures
        for answer in o.answers {
            let (type, text) = try FlagValue.answer("answer", answer)
            if AnswerRule.isMalformedKeyPath(type) {
                throw UsageError("--answer: '\(type)' is not a key path (a .KEYPATH answers the messages that have one; no key may be empty)")
            }
            s.answers.append(AnswerRule(type: type, template: try template("answer", text, scope: captures.union(.message), o,
                                                                            source: "--answer \(type)")))
        }
        s.heartbeat = try o.heartbeat.map { text throws(UsageError) in try template("heartbeat", text, scope: captures, o) }
        s.heartbeatIntervalNanos = o.heartbeatIntervalNanos
        s.heartbeatTimeoutNanos = o.heartbeatTimeoutNanos
        s.wrap = try o.wrap.map { text throws(UsageError) in try template("wrap", text, scope: captures.union(.line), o) }
        s.recordPath = o.record
        s.replay = try o.replay.map { path throws(UsageError) in try RecordingFile.read(path, codec: o.codec) }
        s.replaySpeed = o.replaySpeed
        try checkPlaybackLength(s, o, server: server)
        return s
    }

    /// A replay that would last longer than wspipe waits for anything (at a
    /// low --replay-speed, or a slow --rate) is refused before it starts.
    private static func checkPlaybackLength(_ s: ScriptOptions, _ o: Options, server: Bool) throws(UsageError) {
        guard let recording = s.replay, let path = o.replay,
              recording.playbackNanos(server: server, speed: s.replaySpeed, rateIntervalNanos: o.rateIntervalNanos)
                > DurationLimit.maxNanos
        else { return }
        let pace = o.rateIntervalNanos != nil ? "at this --rate" : "at this --replay-speed"
        throw UsageError("--replay \(path): \(pace) the replay would last more than \(DurationLimit.text)")
    }

    /// --on-connect and --on-connect-file: a client's (with its captures) or,
    /// with --listen, the greeting of every client.
    static func onConnectTemplates(_ o: Options, server: Bool) throws(UsageError) -> [MessageTemplate] {
        if o.onConnect.isEmpty && o.onConnectFile == nil { return [] }
        let scope: TemplateScope = server ? [] : .captures
        var templates = try o.onConnect.map { text throws(UsageError) in try template("on-connect", text, scope: scope, o) }
        if let file = o.onConnectFile {
            templates += try OptionFiles.messages(fromFile: file).map { text throws(UsageError) in
                try template("on-connect-file", text, scope: scope, o, source: "--on-connect-file \(file)")
            }
        }
        return templates
    }

    /// `text` as a template of flag `long`; a usage error says which flag,
    /// which template and where in it.
    static func template(_ long: String, _ text: String, scope: TemplateScope, _ o: Options,
                         source: String? = nil) throws(UsageError) -> MessageTemplate {
        do {
            return try MessageTemplate(text, scope: scope, captures: o.captures.map(\.name),
                                       environment: ProcessEnvironment.variable)
        } catch {
            throw UsageError("\(source ?? "--" + long): template '\(text)': \(error)")
        }
    }

    /// What the scripted peer's flags cannot do with each other (the flag
    /// table's modes say where each one works).
    private static func refuseScriptConflicts(_ o: Options, server: Bool) throws(UsageError) {
        if o.wrap != nil {
            if o.lineFormat == .binary { throw .conflict("wrap", "binary") }
            if o.lenient { throw .conflict("wrap", "lenient") }
            if o.replay != nil && !server {
                throw UsageError("--wrap: not with --replay in client mode (the recording is the input, not stdin)")
            }
        }
        if o.replay != nil && !server && o.reverseUnidirectional {
            throw UsageError("--replay: not with -U in client mode (the recording is what is sent)")
        }
        if o.replay != nil && o.rateIntervalNanos != nil && o.replaySpeed != 1 {
            throw .conflict("replay-speed", "rate")
        }
    }
}
