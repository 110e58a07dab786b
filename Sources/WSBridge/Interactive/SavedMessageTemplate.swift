/// The `${…}` of a saved message, filled in when `/send` sends it
/// (wspipe(1): INTERACTIVE MODE): `${NAME}` is the latest value of
/// `--capture NAME`, `${.KEYPATH}` the value at KEYPATH of the last message
/// received (`${.}` the whole of it), each put in as JSON, null while there
/// is none. `${` always starts a variable.
///
/// The one place the interactive mode fills templates; the same spelling as
/// --on-connect's `${NAME}` (CaptureTable.substitute).
enum SavedMessageTemplate {
    struct Values {
        /// The --capture names there are.
        var captureNames: [String] = []
        /// The latest raw JSON value of a capture, nil before one was seen.
        var capture: (String) -> [UInt8]? = { _ in nil }
        /// The last text message received, when it was JSON.
        var lastReceived: [UInt8]?
        /// Any ${NAME} is taken (as null): a message saved now may be sent
        /// in a later run that has the --capture.
        var anyCaptureName = false
    }

    /// The message with every variable filled, or why it cannot be.
    static func render(_ template: String, _ values: Values) -> Result<[UInt8], TemplateFillError> {
        let text = Array(template.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            guard text[i] == UInt8(ascii: "$"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "{") else {
                out.append(text[i])
                i += 1
                continue
            }
            guard let close = text[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                return .failure(TemplateFillError(offset: i, message: "'${' without a closing '}'"))
            }
            let body = String(decoding: text[(i + 2)..<close], as: UTF8.self)
            switch value(body, values) {
            case .success(let value): out += value ?? Array("null".utf8)
            case .failure(let problem): return .failure(TemplateFillError(offset: i, message: problem.message))
            }
            i = close + 1
        }
        return .success(out)
    }

    /// The value of `${body}` (nil: null), or why there is none.
    private static func value(_ body: String, _ values: Values) -> Result<[UInt8]?, Problem> {
        if body.hasPrefix(".") {
            let keys = body.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            let path = keys == [""] ? [] : keys.map { Array($0.utf8) }
            if path.contains(where: \.isEmpty) { return .failure(Problem("empty key in ${\(TerminalEscaping.escaping(body))}")) }
            guard let message = values.lastReceived else { return .success(Optional<[UInt8]>.none) }
            return .success(message.withUnsafeBytes { raw -> [UInt8]? in
                guard let range = JSONScanner.valueRange(atPath: path, in: raw) else { return nil }
                return Array(raw[JSONSkipper.trimmingWhitespace(range, in: raw)])
            })
        }
        guard values.captureNames.contains(body) || values.anyCaptureName else {
            return .failure(Problem("unknown variable ${\(TerminalEscaping.escaping(body))}: "
                                    + "${NAME} needs --capture NAME=KEYPATH, ${.KEYPATH} reads the last message received"))
        }
        return .success(values.capture(body))
    }
}

private struct Problem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

struct TemplateFillError: Error, Equatable {
    /// UTF-8 offset of the `${` in the template.
    var offset: Int
    var message: String
}
