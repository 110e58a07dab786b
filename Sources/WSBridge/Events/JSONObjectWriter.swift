import WSJSON
/// A tiny appender for one-line JSON objects, `{"k":v,...}` followed by "\n",
/// as written for events and stats (wspipe(1): OPTIONS, Diagnostics). Members come out in the order
/// they are added; strings are escaped by `JSONScanner.appendQuoted`, numbers
/// are written as plain decimal integers and raw values are inserted as they are
/// (the caller vouches they are JSON).
public struct JSONObjectWriter {
    public private(set) var bytes: [UInt8]
    /// No member written yet in the innermost open object.
    private var atFirstMember = true

    /// Starts the line with "{".
    public init(capacity: Int = 96) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    public mutating func string(_ key: String, _ value: String) {
        member(key)
        JSONObjectWriter.appendString(value, into: &bytes)
    }

    public mutating func int(_ key: String, _ value: Int64) {
        member(key)
        JSONObjectWriter.appendDecimal(value, into: &bytes)
    }

    public mutating func int(_ key: String, _ value: Int) {
        int(key, Int64(value))
    }

    public mutating func bool(_ key: String, _ value: Bool) {
        member(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// A value that is already JSON text (e.g. a captured key), inserted as is.
    public mutating func raw(_ key: String, _ value: [UInt8]) {
        member(key)
        bytes.append(contentsOf: value)
    }

    /// An array of values that are already JSON text.
    public mutating func rawArray(_ key: String, _ values: [[UInt8]]) {
        member(key)
        bytes.append(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `"key":[first,last]`: the stdin lines of a tally, when it has any.
    public mutating func lineRange(_ key: String, _ tally: LineTally) {
        guard tally.first > 0 else { return }
        member(key)
        bytes.append(UInt8(ascii: "["))
        JSONObjectWriter.appendDecimal(Int64(tally.first), into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONObjectWriter.appendDecimal(Int64(tally.last), into: &bytes)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Opens a nested object as the value of `key`; close it with `endObject`.
    public mutating func beginObject(_ key: String) {
        member(key)
        bytes.append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// Closes the top-level object and ends the line.
    public mutating func finishLine() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(0x0A)
        return bytes
    }

    /// The separator if needed, then `"key":`.
    private mutating func member(_ key: String) {
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
        JSONObjectWriter.appendString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` as a JSON string token (RFC 8259 §7).
    private static func appendString(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { JSONScanner.appendQuoted(UnsafeRawBufferPointer($0), into: &out) }
    }

    /// Decimal digits of `value`, with "-" when negative (RFC 8259 §6 int).
    private static func appendDecimal(_ value: Int64, into out: inout [UInt8]) {
        // The magnitude as UInt64 also covers Int64.min.
        var magnitude = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // Written least significant digit first, then turned around in place.
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }
}
