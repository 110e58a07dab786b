import WSCore

/// The client's copy of the frames the kernel holds (wspipe(1): RECONNECT
/// AND REPLAY): they stay in the connection's output after they are written
/// until the peer's TCP acknowledges them (`DeliveryAccount.Release`), so
/// that the next connection can send again what never got there. The output
/// then holds whole frames one after another: first those written and not
/// released, then those not written yet. A compressed frame cannot be turned
/// back into its message (with context takeover it depends on the ones
/// before it): its original is kept beside it, by record number.
struct KeptFrames {
    /// Frame-stream offset of the output's first byte.
    private(set) var released = 0
    private var originals: [Int: [UInt8]] = [:]
    /// Memory the originals hold (counted against --queue-limit).
    private(set) var originalBytes = 0

    /// Keeps the original of compressed record `number`.
    mutating func keep(original: [UInt8], record number: Int) {
        originals[number] = original
        originalBytes += original.count
    }

    /// Lets go of the frames `release` names (and their originals), then of
    /// the control frames after them that were acknowledged too.
    mutating func apply(_ release: DeliveryAccount.Release, in connection: inout Connection) {
        if !originals.isEmpty {
            for number in release.records { originalBytes -= originals.removeValue(forKey: number)?.count ?? 0 }
        }
        if release.end > released {
            connection.consumeOutput(release.end - released)
            released = release.end
        }
        // A Pong or the Close after the last data frame released.
        while released < release.acknowledged {
            guard let (length, isData) = connection.withOutput({ bytes -> (Int, Bool)? in
                guard let length = Self.frameLength(at: bytes) else { return nil }
                return (length, bytes[0] & 0x08 == 0)
            }), !isData, released + length <= release.acknowledged else { return }
            connection.consumeOutput(length)
            released += length
        }
    }

    /// The first frame boundary at or after frame-stream offset `after`,
    /// found from `from`, a boundary in the output (whose first byte is at
    /// `outputStart`, the client's `released`): where a frame can be put
    /// ahead of those not written yet.
    func boundary(from: Int, after: Int, in connection: Connection, outputStart: Int? = nil) -> Int {
        let start = outputStart ?? released
        return connection.withOutput { all in
            var offset = from - start
            while start + offset < after, offset < all.count,
                  let length = Self.frameLength(at: UnsafeRawBufferPointer(rebasing: all[offset...])) {
                offset += length
            }
            return start + offset
        }
    }

    /// After the connection ended: each data frame still kept, in order, with
    /// its opcode, unmasked payload (or original) and fate. Control frames
    /// belonged to the connection and go; so does everything, after.
    mutating func drain(from connection: inout Connection, account: DeliveryAccount,
                        _ body: (Opcode, UnsafeRawBufferPointer, DeliveryAccount.Fate) -> Void) {
        var fates: [(Int, DeliveryAccount.Fate)] = []
        account.forEachKept { fates.append(($0, $1)) }
        var payload: [UInt8] = []
        var next = 0
        connection.withOutput { all in
            var offset = 0
            while offset < all.count, let length = Self.frameLength(at: UnsafeRawBufferPointer(rebasing: all[offset...])) {
                let frame = UnsafeRawBufferPointer(rebasing: all[offset..<offset + length])
                let opcode = Opcode(rawValue: frame[0] & 0x0F)
                offset += length
                guard !opcode.isControl, next < fates.count else { continue }
                let (number, fate) = fates[next]
                next += 1
                if let original = originals[number] {
                    original.withUnsafeBytes { body(opcode, $0, fate) }
                } else {
                    Self.unmaskedPayload(of: frame, into: &payload)
                    payload.withUnsafeBytes { body(opcode, $0, fate) }
                }
            }
        }
        discard(from: &connection)
    }

    /// Nothing kept is wanted back (the peer read it all): it goes without
    /// being read back frame by frame.
    mutating func discard(from connection: inout Connection) {
        connection.discardOutput()
        if !originals.isEmpty { originals.removeAll() }
        originalBytes = 0
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
