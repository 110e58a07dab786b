extension JSONScanner {
    /// Append `json` (known valid) with all whitespace outside strings removed;
    /// every token byte unchanged.
    ///
    /// RFC 8259 §2 makes whitespace between tokens insignificant, so the result
    /// is the same JSON value on one line. Runs between whitespace are copied with
    /// one append each; string bodies are skipped eight bytes at a time.
    public static func compact(_ json: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard let raw = json.baseAddress, json.count > 0 else { return }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = json.count
        var runStart = 0
        var i = 0
        var escape = false
        while i < n {
            let c = p[i]
            if c == 0x22 {
                i = JSONSkipper.skipString(p, n, from: i &+ 1, sawEscape: &escape)
            } else if JSONSkipper.isWhitespace(c) {
                appendBytes(p, runStart, i, into: &out)
                i = JSONSkipper.skipWhitespace(p, n, from: i &+ 1)
                runStart = i
            } else {
                i &+= 1
            }
        }
        appendBytes(p, runStart, n, into: &out)
    }

    /// Appends bytes `start ..< end` of `p` with one copy.
    @inline(__always)
    static func appendBytes(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]) {
        if end > start {
            out.append(contentsOf: UnsafeBufferPointer(start: p + start, count: end &- start))
        }
    }
}
