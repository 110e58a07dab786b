import WSCore
import WSTransport

/// The read loop of an opening handshake, shared by the client (reading the
/// server's response) and the server (reading a client's request): read
/// until the HTTP head parser decides, the stream would block, or it ends.
/// The parsers cap the head at 16 KiB, so the reads are bounded too.
package struct HandshakeReader {
    package enum Step {
        /// `feed` returned true: the handshake is decided.
        case decided
        /// Nothing more to read now: wait for `interest(of:)`.
        case wouldBlock
        case eof
        case failed(String)
    }

    private let chunkSize: Int
    /// Allocated for the handshake only: a server keeps its clients'
    /// readers, and 10,000 idle clients each holding 8 KiB of read buffer
    /// were half of the server's memory. Raw and never zeroed: a response of
    /// a few hundred bytes touched all 16 KiB (a memset, and its pages) at
    /// every connection; only the bytes a read reports are looked at.
    private var chunk = ByteBuffer()

    package init(chunkSize: Int) {
        self.chunkSize = chunkSize
    }

    /// Reads and hands each piece to `feed`, which returns true once it has
    /// decided. TLS may hold decrypted bytes poll(2) cannot see, so reading
    /// goes on until the stream says it would block.
    package mutating func read(from stream: ByteStream, _ feed: (UnsafeRawBufferPointer) -> Bool) -> Step {
        if chunk.capacity == 0 { chunk = ByteBuffer(capacity: chunkSize) }
        let step = readUntilStopped(from: stream, feed)
        if case .wouldBlock = step { return step }
        chunk = ByteBuffer()
        return step
    }

    private mutating func readUntilStopped(from stream: ByteStream, _ feed: (UnsafeRawBufferPointer) -> Bool) -> Step {
        while true {
            var result = IOResult.wouldBlock
            chunk.removeAll()
            chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: chunkSize) { free in
                result = stream.read(into: UnsafeMutableRawBufferPointer(rebasing: free[..<chunkSize]))
                if case .bytes(let n) = result { return n }
                return 0
            }
            switch result {
            case .bytes:
                if chunk.withReadableBytes(feed) { return .decided }
            case .wouldBlock: return .wouldBlock
            case .eof: return .eof
            case .error(let error): return .failed("\(error)")
            }
        }
    }

    /// What to wait for after `.wouldBlock` (TLS may need to write first).
    package static func interest(of stream: ByteStream) -> EventLoop.Interest {
        stream.wants.isEmpty ? .read : stream.wants
    }
}
