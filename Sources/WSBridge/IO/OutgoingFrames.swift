import WSCore

/// Keeps a client connection's frames until the peer's TCP has acknowledged
/// them, so that what never reached the peer is sent again on the next
/// connection, and what reached only its kernel after it last gave a sign
/// of life can be counted as unconfirmed (wspipe(1): RECONNECT AND REPLAY).
///
/// The output holds whole frames one after another (each send appends one
/// complete frame, RFC 6455 §5.2): first those written but not released,
/// then those not written yet. Stream offsets count every byte of the
/// connection's output since it opened; `released` is the offset of the
/// output's first byte. A frame is released (consumed) once the kernel says
/// the peer acknowledged it. Asking costs a system call, so the channel asks
/// only each time another `retainStep` bytes have been written.
struct OutgoingFrames {
    /// A data frame handed back after the connection ended.
    struct Unsent {
        var tag: Int
        /// The peer's TCP acknowledged all of it.
        var acknowledged: Bool
        /// It was written after the peer last sent anything.
        var afterSignOfLife: Bool
    }

    static let retainStep = 256 << 10

    /// Stream offset of the output's first byte.
    private(set) var released = 0
    /// Stream bytes written to the socket.
    private(set) var written = 0
    /// The data frames still in the output, oldest first from `firstRecord`:
    /// where each ends in the stream, and the sender's tag for it (a stdin
    /// line number). Two arrays of plain integers, so that recording a
    /// frame (once per message) costs two appends and no reference counting.
    private var ends: [Int] = []
    private var tags: [Int] = []
    private var firstRecord = 0
    /// The payloads of compressed frames, which cannot be read back from
    /// them, by record number (`recordBase` + index into `ends`).
    private var originals: [Int: [UInt8]] = [:]
    /// Record number of `ends[0]`.
    private var recordBase = 0
    /// `written` when the peer last sent something.
    private var writtenAtSignOfLife = 0
    /// Data frames released although written after the last sign of life.
    private(set) var releasedUnconfirmed = 0
    private var nextAckCheck = retainStep

    /// Bytes at the front of the output already written.
    var unwrittenOffset: Int { written - released }

    /// A data frame was appended; `outputEnd` is the output's length now.
    mutating func recorded(tag: Int, outputEnd: Int, original: [UInt8]? = nil) {
        if let original {
            originals[recordBase + ends.count] = original
            originalBytes += original.count
        }
        ends.append(released + outputEnd)
        tags.append(tag)
    }

    /// Memory the originals of compressed frames hold.
    private(set) var originalBytes = 0

    /// The transport wrote `count` more bytes. True when it is time to ask
    /// the kernel what was acknowledged (`acknowledged`).
    mutating func didWrite(_ count: Int) -> Bool {
        written += count
        return written - released >= nextAckCheck
    }

    /// The peer sent something: whatever was written before is confirmed.
    mutating func peerSpoke() {
        writtenAtSignOfLife = written
        releasedUnconfirmed = 0
    }

    /// The kernel holds `unacknowledged` of the written bytes: release every
    /// frame the peer's TCP has acknowledged in full.
    mutating func acknowledged(unacknowledged: Int, in connection: inout Connection) {
        release(upTo: written - unacknowledged, in: &connection)
        nextAckCheck = written - released + Self.retainStep
    }

    /// After the connection ended: each data frame still kept (written or
    /// not), in order, with its opcode and unmasked payload; `unacknowledged`
    /// is what the kernel still held (nil if unknown: nothing counts as
    /// acknowledged then). Control frames belonged to the connection and go.
    mutating func drain(from connection: inout Connection, unacknowledged: Int?,
                        _ body: (Opcode, UnsafeRawBufferPointer, Unsent) -> Void) {
        let ackedUpTo = unacknowledged.map { written - $0 } ?? released
        // What the peer acknowledged before it last gave a sign of life is
        // settled (after a clean close, everything): only the rest is handed back.
        release(upTo: min(ackedUpTo, writtenAtSignOfLife), in: &connection)
        var payload: [UInt8] = []
        var index = firstRecord
        connection.withOutput { all in
            var offset = 0
            while offset < all.count, let length = Self.frameLength(at: UnsafeRawBufferPointer(rebasing: all[offset...])) {
                let frame = UnsafeRawBufferPointer(rebasing: all[offset..<offset + length])
                let opcode = Opcode(rawValue: frame[0] & 0x0F)
                offset += length
                guard !opcode.isControl, index < ends.count else { continue }
                let end = ends[index]
                let unsent = Unsent(tag: tags[index], acknowledged: end <= ackedUpTo,
                                    afterSignOfLife: end > writtenAtSignOfLife)
                if let original = originals[recordBase + index] {
                    original.withUnsafeBytes { body(opcode, $0, unsent) }
                } else {
                    Self.unmaskedPayload(of: frame, into: &payload)
                    payload.withUnsafeBytes { body(opcode, $0, unsent) }
                }
                index += 1
            }
        }
        discard(from: &connection)
    }

    /// After the connection ended, when nothing it kept is wanted back (the
    /// peer read it all): the frames go without being read back one by one.
    mutating func discard(from connection: inout Connection) {
        connection.discardOutput()
        ends.removeAll()
        tags.removeAll()
        if !originals.isEmpty { originals.removeAll() }
        recordBase = 0
        firstRecord = 0
        originalBytes = 0
        released = written
    }

    /// Consumes the frames that end at or before `limit`: every data frame
    /// whose recorded end is within it (with the control frames between
    /// them), in one step, then control frames after the last of them.
    private mutating func release(upTo limit: Int, in connection: inout Connection) {
        var last = firstRecord
        while last < ends.count && ends[last] <= limit { last += 1 }
        if last > firstRecord {
            // Ends only grow: the frames written after the last sign of life come last.
            var confirmed = firstRecord
            while confirmed < last && ends[confirmed] <= writtenAtSignOfLife { confirmed += 1 }
            releasedUnconfirmed += last - confirmed
            if !originals.isEmpty {
                for index in firstRecord ..< last {
                    originalBytes -= originals.removeValue(forKey: recordBase + index)?.count ?? 0
                }
            }
            connection.consumeOutput(ends[last - 1] - released)
            released = ends[last - 1]
            dropRecords(upTo: last)
        }
        // A Pong or the Close after the last data frame released.
        while released < limit {
            guard let (length, isData) = connection.withOutput({ bytes -> (Int, Bool)? in
                guard let length = Self.frameLength(at: bytes) else { return nil }
                return (length, bytes[0] & 0x08 == 0)
            }), !isData, released + length <= limit else { return }
            connection.consumeOutput(length)
            released += length
        }
    }

    /// Forgets the records before `index` (released).
    private mutating func dropRecords(upTo index: Int) {
        firstRecord = index
        if firstRecord == ends.count {
            recordBase += ends.count
            ends.removeAll(keepingCapacity: true)
            tags.removeAll(keepingCapacity: true)
            firstRecord = 0
        } else if firstRecord > 4096 && firstRecord * 2 > ends.count {
            recordBase += firstRecord
            ends.removeFirst(firstRecord)
            tags.removeFirst(firstRecord)
            firstRecord = 0
        }
    }

    /// Total length of the frame starting at `bytes`, or nil if its header is
    /// not all there (never the case for frames this side encoded).
    static func frameLength(at bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let second = bytes[1]
        let maskLength = second & 0x80 != 0 ? 4 : 0
        switch second & 0x7F {
        case 126:
            guard bytes.count >= 4 else { return nil }
            return 4 + maskLength + (Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return nil }
            var length = 0
            for i in 2..<10 { length = length << 8 | Int(bytes[i]) }
            return 10 + maskLength + length
        case let short:
            return 2 + maskLength + Int(short)
        }
    }

    private static func unmaskedPayload(of frame: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let second = frame[1]
        var headerLength = 2
        if second & 0x7F == 126 { headerLength = 4 } else if second & 0x7F == 127 { headerLength = 10 }
        let masked = second & 0x80 != 0
        let payloadStart = headerLength + (masked ? 4 : 0)
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: frame[payloadStart...])
        guard masked else { return }
        let key = UInt32(frame[headerLength]) << 24 | UInt32(frame[headerLength + 1]) << 16
            | UInt32(frame[headerLength + 2]) << 8 | UInt32(frame[headerLength + 3])
        out.withUnsafeMutableBytes { Masking.apply(key: key, offset: 0, inPlace: $0) }
    }
}
