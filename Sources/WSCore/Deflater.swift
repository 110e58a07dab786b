import CZlib

/// A raw DEFLATE compressor (zlib, no header: RFC 7692 §7.2.1 "Compress all
/// the octets of the payload of the message using DEFLATE") that ends every
/// message with a sync flush and strips the flush's tail.
///
/// A class because zlib keeps a pointer back to its `z_stream`: the stream
/// lives at one heap address for its whole life.
final class Deflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let resetsEachMessage: Bool
    /// The compressed message; reused, released when one message made it large.
    private var scratch = ByteBuffer()
    private static let retainedCapacity = 1 << 20
    /// zlib's fastest level. On JSON it still shrinks messages 5-15 times
    /// (level 6 does about 1.5 times better), for a third of level 6's time
    /// per message: measured 26 against 84 µs for a 16 KiB line, 1.4 against
    /// 2.6 µs for a 100-byte one.
    private static let level: Int32 = Z_BEST_SPEED

    /// `windowBits` 9-15 (see `DeflateParameters.sendWindowBits` for 8).
    /// `resetsEachMessage`: no context takeover (§7.1.1).
    init(windowBits: Int, resetsEachMessage: Bool) {
        self.resetsEachMessage = resetsEachMessage
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits: a raw deflate stream without zlib header or trailer.
        // memLevel 8 is zlib's default (deflateInit uses it).
        let status = deflateInit2_(stream, Deflater.level, Z_DEFLATED, -Int32(windowBits), 8,
                                   Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed (\(status))")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses one whole message and calls `body` with the payload to send.
    ///
    /// §7.2.1: compress, end with an empty stored block (what Z_SYNC_FLUSH
    /// emits), then "Remove 4 octets (that are 0x00 0x00 0xff 0xff) from the
    /// tail end".
    func compress<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        // An empty message is the single byte 0x00: with the receiver's tail
        // it is an empty stored block. (zlib itself would emit nothing for a
        // second sync flush in a row without input.)
        if message.isEmpty { return withUnsafeBytes(of: UInt8(0)) { body($0) } }
        scratch.removeAll(keepingCapacity: scratch.capacity <= Deflater.retainedCapacity)
        var rest = message
        repeat {
            // avail_in is 32 bits wide: feed huge messages in pieces.
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(1 << 30))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(piece.count))
            deflatePiece(piece, flush: rest.isEmpty)
        } while !rest.isEmpty
        precondition(scratch.readableBytes >= 4, "deflate: sync flush marker missing")
        defer { if resetsEachMessage { deflateReset(stream) } }
        return scratch.withReadableBytes { body(UnsafeRawBufferPointer(rebasing: $0.dropLast(4))) }
    }

    private func deflatePiece(_ input: UnsafeRawBufferPointer, flush: Bool) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        // zlib.h: with a flush, call deflate again while it fills all output space.
        var outputFull = true
        while stream.pointee.avail_in > 0 || (flush && outputFull) {
            let room = max(input.count / 2, 4096)
            scratch.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { free in
                stream.pointee.next_out = free.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(min(free.count, Int(UInt32.max)))
                let before = stream.pointee.avail_out
                let status = deflate(stream, flush ? Z_SYNC_FLUSH : Z_NO_FLUSH)
                precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate failed (\(status))")
                outputFull = stream.pointee.avail_out == 0
                return Int(before - stream.pointee.avail_out)
            }
        }
        stream.pointee.next_in = nil
    }
}
