import CZlib

/// A raw DEFLATE decompressor whose output never grows past a limit, however
/// much the compressed input would expand (a decompression bomb stops at the
/// limit with `.tooBig`, after at most `limit` bytes of output).
///
/// A class because zlib keeps a pointer back to its `z_stream`: the stream
/// lives at one heap address for its whole life.
final class Inflater {
    enum Outcome: Equatable {
        case ok
        /// The output would pass the limit.
        case tooBig
        /// Not a valid DEFLATE stream (zlib's message).
        case corrupt(String)
    }

    private let stream: UnsafeMutablePointer<z_stream>
    /// The peer compressed the last message with a final block (BFINAL=1): the
    /// stream is over and restarts with the next message.
    private var streamEnded = false

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // -15: raw deflate with the largest window, which reads any window the
        // peer may use (§7.1.2: at most 15 bits).
        let status = inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed (\(status))")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Decompresses `input`, appending to `out`, which must not exceed `limit`
    /// readable bytes. `out` grows with the bytes produced (doubling, capped at
    /// the limit), never with what the input claims.
    func inflate(_ input: UnsafeRawBufferPointer, into out: inout ByteBuffer, limit: Int) -> Outcome {
        // After a final block the rest of the message is padding (RFC 7692
        // §7.2.3.4 shows a sender adding a 0x00 there): ignored.
        if input.isEmpty || streamEnded { return .ok }
        var rest = input
        repeat {
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(1 << 30))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(piece.count))
            let outcome = inflatePiece(piece, into: &out, limit: limit)
            if outcome != .ok { return outcome }
        } while !rest.isEmpty
        return .ok
    }

    /// The message is complete: RFC 7692 §7.2.2 "Append 4 octets of 0x00 0x00
    /// 0xff 0xff to the tail end of the payload of the message" and inflate
    /// them. `reset`: no context takeover, forget the window now.
    func finishMessage(into out: inout ByteBuffer, limit: Int, reset: Bool) -> Outcome {
        var outcome = Outcome.ok
        if !streamEnded {
            let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
            outcome = tail.withUnsafeBytes { inflatePiece($0, into: &out, limit: limit) }
        }
        if reset {
            inflateReset(stream)
        } else if streamEnded {
            restartKeepingWindow()
        }
        streamEnded = false
        return outcome
    }

    private func inflatePiece(_ input: UnsafeRawBufferPointer, into out: inout ByteBuffer, limit: Int) -> Outcome {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }
        while true {
            let room = limit - out.readableBytes
            if room == 0 { return probeAtLimit() }
            var status = Z_OK
            var outputFull = false
            out.writeWithUnsafeMutableBytes(minimumWritableBytes: min(room, 4096), capacityLimit: limit) { free in
                let size = min(free.count, room, Int(UInt32.max))
                stream.pointee.next_out = free.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(size)
                status = CZlib.inflate(stream, Z_SYNC_FLUSH)
                outputFull = stream.pointee.avail_out == 0
                return size - Int(stream.pointee.avail_out)
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                // Done once all input is in and zlib had output space left over.
                if stream.pointee.avail_in == 0 && !outputFull { return .ok }
                if status == Z_BUF_ERROR && !outputFull { return .ok }
            case Z_STREAM_END:
                streamEnded = true
                return .ok
            default:
                return .corrupt(errorMessage(status))
            }
        }
    }

    /// The output is exactly at the limit: one more byte would be too big. A
    /// one-byte buffer tells whether the remaining input produces anything.
    private func probeAtLimit() -> Outcome {
        var byte: UInt8 = 0
        while true {
            let status = withUnsafeMutablePointer(to: &byte) { pointer -> Int32 in
                stream.pointee.next_out = pointer
                stream.pointee.avail_out = 1
                return CZlib.inflate(stream, Z_SYNC_FLUSH)
            }
            if stream.pointee.avail_out == 0 { return .tooBig }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 || status == Z_BUF_ERROR { return .ok }
            case Z_STREAM_END:
                streamEnded = true
                return .ok
            default:
                return .corrupt(errorMessage(status))
            }
        }
    }

    /// After a final block (RFC 7692 §7.2.3.4 lets a sender end a message with BFINAL=1)
    /// the next message is a new DEFLATE stream, but with context takeover it
    /// may still refer to the bytes before: restart with them as the dictionary.
    private func restartKeepingWindow() {
        var window = [UInt8](repeating: 0, count: 1 << 15)
        var length: uInt = 0
        window.withUnsafeMutableBufferPointer { buffer in
            _ = inflateGetDictionary(stream, buffer.baseAddress, &length)
            inflateReset(stream)
            _ = inflateSetDictionary(stream, buffer.baseAddress, length)
        }
    }

    private func errorMessage(_ status: Int32) -> String {
        if let message = stream.pointee.msg { return "invalid compressed data: " + String(cString: message) }
        return "invalid compressed data (zlib status \(status))"
    }
}
