@testable import WSJSON

/// The JSON scanner: validation (the fast path must never vouch for what the
/// full scan rejects, nor differ on compaction, in either form of its vector
/// steps), and on valid input
/// compaction (whose result must be valid and one line), key paths and the
/// envelope recogniser.
enum FuzzJSON {
    static func run(_ input: UnsafeRawBufferPointer) {
        if let base = input.baseAddress, input.count > 0 {
            let fast = JSONFastPath.check(base.assumingMemoryBound(to: UInt8.self), input.count)
            let portable = JSONFastPath.checkPortable(base.assumingMemoryBound(to: UInt8.self), input.count)
            check(portable == fast, "the portable vector steps said \(portable), this machine's \(fast)")
            if fast != -1 {
                let full = JSONScanner.validateFully(input)
                check(full == .valid(needsCompaction: fast == 1), "fast path said \(fast), full scan \(full)")
            }
        }
        guard case .valid(let needsCompaction) = JSONScanner.validate(input) else { return }
        if needsCompaction {
            var compact: [UInt8] = []
            JSONScanner.compact(input, into: &compact)
            let again = compact.withUnsafeBytes { JSONScanner.validate($0) }
            check(again == .valid(needsCompaction: false), "compaction gave \(again)")
        }
        if let range = JSONScanner.valueRange(atPath: [Array("type".utf8)], in: input) {
            check(range.lowerBound >= 0 && range.upperBound <= input.count, "value range outside the input")
            let value = UnsafeRawBufferPointer(rebasing: input[range])
            check(JSONScanner.validate(value).isValid, "the value at a key path is not valid JSON")
        }
        if let (_, range) = JSONScanner.soleStringMember(input) {
            var text: [UInt8] = []
            JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: input[range]), into: &text)
            var quoted: [UInt8] = []
            text.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &quoted) }
            var back: [UInt8] = []
            quoted.withUnsafeBytes { JSONScanner.appendUnescaped(stringToken: $0, into: &back) }
            check(back == text, "a string does not survive quoting and unquoting")
        }
    }
}
