import WSCore
import WSTransport
import WSJSON

/// Cuts a byte stream (stdin) into lines without copying them: bytes are
/// appended as they are read, and complete lines are handed out as views into
/// the buffer. A long line arriving in many reads is scanned once, not once
/// per read (`scanned` remembers how far we already looked).
package struct LineSplitter {
    private var buffer = ByteBuffer(capacity: 256 << 10)
    /// Readable bytes already known to hold no separator.
    private var scanned = 0
    /// nil with --no-line: the whole input is one "line", handed out at EOF.
    package let separator: UInt8?
    /// In LF mode a CR before the LF is part of the line ending (CRLF input).
    let stripsCR: Bool

    package init(separator: UInt8?) {
        self.separator = separator
        self.stripsCR = separator == UInt8(ascii: "\n")
    }

    package var bufferedBytes: Int { buffer.readableBytes }

    /// Read from `fd` straight into the buffer, up to its whole free space.
    /// At least a quarter of `chunk` must be free: asking for all of it would
    /// double the buffer as soon as a partial line sits in it (a 256 KiB
    /// buffer became 512 KiB on the second read of small lines).
    package mutating func read(from fd: Int32, chunk: Int) -> IOResult {
        var outcome = IOResult.wouldBlock
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunk / 4) { space in
            outcome = FD.read(fd, into: space)
            if case .bytes(let n) = outcome { return n }
            return 0
        }
        return outcome
    }

    /// Hands each complete line (without its terminator) to `body`, in order,
    /// until `body` returns false or no complete line is left.
    package mutating func forEachLine(_ body: (UnsafeRawBufferPointer) -> Bool) {
        forEachLine(checkingJSON: false) { line, _ in body(line) }
    }

    /// As above, each line with the JSON check's verdict when
    /// `checkingJSON` (`JSONScanner.quickCheck`: 0 valid, 1 valid with a
    /// line break to compact, -1 not known valid), made as soon as the line's
    /// end is found, while its bytes are in the cache; -1 otherwise.
    ///
    /// (The check and the search in one pass over the bytes, the fast path
    /// stopping at a '\n' after a whole value, cost more: 683 instructions a
    /// 100-byte line against 596 for the search and the check apart, most
    /// of it code the compiler added around the longer loop; callgrind.)
    @inline(__always)
    package mutating func forEachLine(checkingJSON: Bool, _ body: (UnsafeRawBufferPointer, _ verdict: Int) -> Bool) {
        guard let sep = separator else { return }
        var consumed = 0
        var keepGoing = true
        let stripCR = stripsCR
        var scanFrom = scanned
        buffer.withReadableBytes { all in
            guard let base = all.baseAddress else { return }
            while keepGoing && scanFrom < all.count {
                guard let found = Bytes.firstIndex(of: sep, in: base + scanFrom, count: all.count - scanFrom) else {
                    scanFrom = all.count
                    break
                }
                let end = scanFrom + found
                var lineEnd = end
                if stripCR && lineEnd > consumed && all[lineEnd - 1] == 13 { lineEnd -= 1 }
                let verdict = checkingJSON ? JSONScanner.quickCheck(base + consumed, lineEnd - consumed) : -1
                keepGoing = body(UnsafeRawBufferPointer(rebasing: all[consumed..<lineEnd]), verdict)
                consumed = end + 1
                scanFrom = consumed
            }
        }
        buffer.consume(consumed)
        scanned = scanFrom - consumed
    }

    /// At end of input: the last line had no terminator but still counts.
    package mutating func finish(_ body: (UnsafeRawBufferPointer) -> Void) {
        guard !buffer.isEmpty else { return }
        buffer.withReadableBytes { all in
            var n = all.count
            if stripsCR && n > 0 && all[n - 1] == 13 { n -= 1 }
            body(UnsafeRawBufferPointer(rebasing: all[0..<n]))
        }
        buffer.removeAll()
        scanned = 0
    }
}
