import WSBridge
import WSCore
import WSMessages

/// Value checks shared by the flag table's `apply` closures. Each returns the
/// parsed value or throws the usage error naming the flag.
enum FlagValue {
    /// A duration of at most `DurationLimit.maxNanos` (a year): no deadline
    /// made from it can overflow.
    static func duration(_ long: String, _ value: String) throws(UsageError) -> Int64 {
        guard let nanos = DurationParser.nanos(value) else {
            throw DurationParser.isTooLong(value) ? .durationTooLong(long, value) : .invalidDuration(long, value)
        }
        guard nanos <= DurationLimit.maxNanos else { throw .durationTooLong(long, value) }
        return nanos
    }

    /// A size greater than zero.
    static func size(_ long: String, _ value: String) throws(UsageError) -> Int {
        guard let bytes = SizeParser.bytes(value) else { throw .invalidSize(long, value) }
        guard bytes > 0 else { throw UsageError("--\(long): size must be greater than 0") }
        return bytes
    }

    static func positiveInteger(_ long: String, _ value: String) throws(UsageError) -> Int {
        guard let number = Int(value), number > 0, value.first != "+" else {
            throw .notPositive(long, value)
        }
        return number
    }

    /// A duration greater than zero (a zero ping interval or timeout would
    /// ping in a busy loop or declare every connection dead at once).
    static func positiveDuration(_ long: String, _ value: String) throws(UsageError) -> Int64 {
        let nanos = try duration(long, value)
        guard nanos > 0 else { throw UsageError("--\(long): duration must be greater than 0") }
        return nanos
    }

    /// "off" (none: the documented default) or a duration greater than zero.
    static func positiveDurationOrOff(_ long: String, _ value: String) throws(UsageError) -> Int64? {
        value == "off" ? nil : try positiveDuration(long, value)
    }

    /// The shortest period of something sent on its own (a heartbeat, a
    /// ping): below it the timer would send in a near busy loop.
    static let shortestIntervalNanos: Int64 = 10_000_000

    /// A duration of at least 10 ms: how often wspipe sends something unasked.
    static func interval(_ long: String, _ value: String) throws(UsageError) -> Int64 {
        let nanos = try duration(long, value)
        guard nanos >= shortestIntervalNanos else {
            throw UsageError("--\(long): '\(value)' is too short: an interval must be at least 10ms")
        }
        return nanos
    }

    /// "off" (the documented default) or an interval of at least 10 ms.
    static func intervalOrOff(_ long: String, _ value: String) throws(UsageError) -> Int64? {
        value == "off" ? nil : try interval(long, value)
    }

    /// "unlimited" (the documented default) or an integer > 0.
    static func positiveIntegerOrUnlimited(_ long: String, _ value: String) throws(UsageError) -> Int? {
        value == "unlimited" ? nil : try positiveInteger(long, value)
    }

    /// "unlimited" (the documented default) or an integer >= 0.
    static func nonNegativeIntegerOrUnlimited(_ long: String, _ value: String) throws(UsageError) -> Int? {
        value == "unlimited" ? nil : try nonNegativeInteger(long, value)
    }

    /// An integer >= 0, written with digits only ("-0" and "+1" are typos).
    static func nonNegativeInteger(_ long: String, _ value: String) throws(UsageError) -> Int {
        guard let number = Int(value), number >= 0, value.first != "+", value.first != "-" else {
            throw .notNonNegative(long, value)
        }
        return number
    }

    /// A fraction from 0 to 1 inclusive, written as a plain decimal.
    static func fraction(_ long: String, _ value: String) throws(UsageError) -> Double {
        guard let number = decimal(value), number <= 1 else { throw .notFraction(long, value) }
        return number
    }

    /// A plain non-negative decimal ("2", "1.5", ".5"): digits with at most one
    /// point and a digit on some side of it. Unlike `Double(_:)` this refuses
    /// signs, exponents, hex, "inf" and "nan", which no user means here.
    static func decimal(_ text: String) -> Double? {
        var digits = 0
        var points = 0
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                points += 1
            } else {
                return nil
            }
        }
        guard digits > 0, points <= 1, text.last != ".", let number = Double(text), number.isFinite else {
            return nil
        }
        return number
    }

    /// A dotted key path ("sequence", "meta.seq") split into its keys, none empty.
    static func keyPath(_ long: String, _ value: String) throws(UsageError) -> [String] {
        let keys = value.split(separator: ".", omittingEmptySubsequences: false)
        guard !keys.contains(where: { $0.isEmpty }) else { throw .invalidKeyPath(long, value) }
        return keys.map(String.init)
    }

    /// `NAME=KEYPATH`: NAME is an identifier ([A-Za-z_][A-Za-z0-9_]*, what
    /// `${NAME}` can spell), KEYPATH a dotted key path.
    static func capture(_ long: String, _ value: String) throws(UsageError) -> (name: String, path: [String]) {
        guard let equals = value.firstIndex(of: "=") else {
            throw UsageError("--\(long): expected NAME=KEYPATH, got '\(value)'")
        }
        let name = String(value[..<equals])
        guard isIdentifier(name) else {
            throw UsageError("--\(long): invalid name '\(name)' (use letters, digits and _, not starting with a digit)")
        }
        guard !TemplateVariable.builtInNames.contains(name) else {
            throw UsageError("--\(long): '\(name)' is a built-in template variable (${\(name)}); choose another name")
        }
        let path = try keyPath(long, String(value[value.index(after: equals)...]))
        return (name, path)
    }

    /// `VALUE=DEST` split at the first '=' (DEST may contain more, as in
    /// `|jq 'select(.a==1)'`), both sides non-empty. Only the shape is checked
    /// here; the bridge parses DEST and reports what is wrong with it.
    static func route(_ long: String, _ value: String) throws(UsageError) -> (value: String, destination: String) {
        guard let equals = value.firstIndex(of: "=") else {
            throw UsageError("--\(long): expected VALUE=DEST, got '\(value)'")
        }
        let match = String(value[..<equals])
        let destination = String(value[value.index(after: equals)...])
        guard !match.isEmpty else { throw UsageError("--\(long): empty VALUE in '\(value)'") }
        guard !destination.isEmpty else { throw UsageError("--\(long): empty DEST in '\(value)'") }
        return (match, destination)
    }

    /// `KEYPATH=VALUE` split at the first '=': a dotted key path, and any
    /// VALUE (its JSON reading is the bridge's).
    static func until(_ long: String, _ value: String) throws(UsageError) -> (path: [String], value: String) {
        guard let equals = value.firstIndex(of: "=") else {
            throw UsageError("--\(long): expected KEYPATH=VALUE, got '\(value)'")
        }
        let path = try keyPath(long, String(value[..<equals]))
        return (path, String(value[value.index(after: equals)...]))
    }

    /// `CODE[:REASON]`: a close code that may be sent (RFC 6455 §7.4.1-2:
    /// 1000-1003, 1007-1014, 3000-4999) and a reason that fits a control
    /// frame (§5.5: 125 bytes of payload, 2 of them the code).
    static func closeCode(_ long: String, _ value: String) throws(UsageError) -> (code: UInt16, reason: String) {
        let colon = value.firstIndex(of: ":")
        let digits = String(colon.map { value[..<$0] } ?? Substring(value))
        let reason = colon.map { String(value[value.index(after: $0)...]) } ?? ""
        guard let number = UInt16(digits), digits.first != "+", CloseCode(rawValue: number).isValidOnWire else {
            throw UsageError("--\(long): '\(digits)' is not a close code wspipe may send (use 1000-1003, 1007-1014 or 3000-4999)")
        }
        guard reason.utf8.count <= 123 else {
            throw UsageError("--\(long): the reason is \(reason.utf8.count) bytes; a Close has room for 123")
        }
        return (number, reason)
    }

    /// "off" (the documented default), or `N/s`, `N/m` or a bare `N` (per
    /// second), N a positive decimal: the interval between two messages.
    static func rateOrOff(_ long: String, _ value: String) throws(UsageError) -> Int64? {
        if value == "off" { return nil }
        var number = Substring(value)
        var perNanos = 1_000_000_000.0
        if value.hasSuffix("/s") {
            number = number.dropLast(2)
        } else if value.hasSuffix("/m") {
            number = number.dropLast(2)
            perNanos = 60_000_000_000
        }
        guard let n = decimal(String(number)), n > 0, perNanos / n >= 1 else {
            throw UsageError("--\(long): invalid rate '\(value)' (use e.g. 10/s, 0.5/s, 90/m)")
        }
        // Compared as a Double: a tiny N makes an interval no Int64 holds.
        guard perNanos / n <= Double(DurationLimit.maxNanos) else {
            throw UsageError("--\(long): '\(value)' is slower than one message every \(DurationLimit.text)")
        }
        return Int64((perNanos / n).rounded())
    }

    /// `TYPE=TEMPLATE` split at the first '=', both sides non-empty.
    static func answer(_ long: String, _ value: String) throws(UsageError) -> (type: String, template: String) {
        guard let equals = value.firstIndex(of: "="), equals != value.startIndex,
              value.index(after: equals) != value.endIndex else {
            throw UsageError("--\(long): expected TYPE=TEMPLATE, got '\(value)'")
        }
        return (String(value[..<equals]), String(value[value.index(after: equals)...]))
    }

    /// A decimal number greater than 0 ("2", "0.5").
    static func positiveDecimal(_ long: String, _ value: String) throws(UsageError) -> Double {
        guard let number = decimal(value), number > 0, number.isFinite else {
            throw UsageError("--\(long): expected a number greater than 0, got '\(value)'")
        }
        return number
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, !isDigit(first) else { return false }
        return text.utf8.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// `USER:PASSWORD` (--user): a colon, no line breaks (they would end the
    /// header). wspipe does not prompt for a password as curl does: there is
    /// no terminal to ask at in a pipe.
    static func credentials(_ long: String, _ value: String) throws(UsageError) -> String {
        guard value.contains(":") else {
            throw UsageError("--\(long): expected USER:PASSWORD, got no ':' (wspipe does not prompt for a password)")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            throw UsageError("--\(long): contains a line break")
        }
        return value
    }

    static func nonEmpty(_ long: String, _ value: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError("--\(long): empty value") }
        return value
    }

    /// `USER:PASSWORD` (--proxy-user, or the line of --proxy-user-file):
    /// split at the first colon (a password may hold more), taken as
    /// written (no percent-decoding, as curl -U); the user is not empty.
    static func proxyUser(_ source: String, _ value: String) throws(UsageError) -> (user: String, password: String) {
        guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else {
            throw UsageError("--\(source): expected USER:PASSWORD")
        }
        return (String(value[..<colon]), String(value[value.index(after: colon)...]))
    }

    /// `-H 'Name: value'` (curl's form): the name is an HTTP token (RFC 9110
    /// §5.1: no spaces, no separators), the value is what follows the first
    /// colon with its leading spaces and tabs trimmed. CR and LF are refused
    /// in both: they would let a value inject headers into the request.
    static func header(_ long: String, _ value: String) throws(UsageError) -> (name: String, value: String) {
        guard let colon = value.firstIndex(of: ":") else {
            throw UsageError("--\(long): expected 'Name: value', got '\(value)'")
        }
        let name = String(value[..<colon])
        guard isToken(name) else {
            throw UsageError("--\(long): expected 'Name: value', got '\(value)'")
        }
        let rest = value[value.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
        guard !rest.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            throw UsageError("--\(long): header value contains a line break")
        }
        try checkNotReserved(name, "--\(long)")
        return (name, String(rest))
    }

    /// A header the handshake owns cannot be given (`ClientHandshake.reservedHeaders`);
    /// `source` says where it was: "--header", "--header-file FILE:3".
    static func checkNotReserved(_ name: String, _ source: String) throws(UsageError) {
        guard let reserved = ClientHandshake.reservedHeader(name) else { return }
        let hint = reserved == "Sec-WebSocket-Extensions" ? " (--compress offers permessage-deflate)" : ""
        throw UsageError("\(source): \(reserved) belongs to the WebSocket handshake; wspipe sets it and it cannot be given\(hint)")
    }

    /// RFC 9110 §5.6.2 token: 1*tchar. Also the form of a subprotocol name
    /// (RFC 6455 §4.1: Sec-WebSocket-Protocol elements are tokens).
    static func isToken(_ text: String) -> Bool {
        HTTPToken.isToken(text)
    }

}
