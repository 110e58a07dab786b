/// Integers longer than 64 bits, between CBOR's bignums (RFC 8949 §3.4.3:
/// tag 2 or 3 on a big-endian byte string) and the decimal digits of
/// `{"$int":"…"}`. Both directions are quadratic in the length, which
/// `CodecLimits` bounds.
enum BigIntegerText {
    /// The decimal digits of the big-endian magnitude of `n` bytes at `p`,
    /// plus one when `plusOne` (tag 3 holds n for the value -1 - n).
    static func decimal(bigEndian p: UnsafePointer<UInt8>, _ n: Int, plusOne: Bool) -> [UInt8] {
        // Limbs of 32 bits, least significant first.
        var limbs: [UInt32] = []
        limbs.reserveCapacity(n / 4 + 2)
        var k = n
        while k > 0 {
            var limb: UInt32 = 0
            var shift: UInt32 = 0
            var taken = 0
            while taken < 4 && k > 0 {
                k -= 1
                limb |= UInt32(p[k]) << shift
                shift += 8
                taken += 1
            }
            limbs.append(limb)
        }
        if plusOne {
            var index = 0
            while true {
                if index == limbs.count { limbs.append(1); break }
                let (sum, carry) = limbs[index].addingReportingOverflow(1)
                limbs[index] = sum
                if !carry { break }
                index += 1
            }
        }
        while limbs.count > 1 && limbs.last == 0 { limbs.removeLast() }
        // Repeated division by 10^9, each remainder nine digits.
        var groups: [UInt32] = []
        while limbs.count > 1 || limbs[0] != 0 {
            var remainder: UInt64 = 0
            var index = limbs.count - 1
            while index >= 0 {
                let value = remainder << 32 | UInt64(limbs[index])
                limbs[index] = UInt32(value / 1_000_000_000)
                remainder = value % 1_000_000_000
                index -= 1
            }
            groups.append(UInt32(remainder))
            while limbs.count > 1 && limbs.last == 0 { limbs.removeLast() }
        }
        if groups.isEmpty { return [0x30] }
        var digits = Array(String(groups.removeLast()).utf8)
        for group in groups.reversed() {
            let text = Array(String(group).utf8)
            digits.append(contentsOf: repeatElement(0x30, count: 9 - text.count))
            digits.append(contentsOf: text)
        }
        return digits
    }

    /// The big-endian magnitude (no leading zero byte) of the decimal
    /// digits `digits`, minus one when `minusOne` (for tag 3). The digits
    /// are known to be digits and the value above 2^64 - 1.
    static func bigEndian(decimal digits: UnsafeBufferPointer<UInt8>, minusOne: Bool) -> [UInt8] {
        var limbs: [UInt32] = [0]   // least significant first
        for digit in digits {
            var carry = UInt64(digit &- 0x30)
            for index in limbs.indices {
                let value = UInt64(limbs[index]) * 10 + carry
                limbs[index] = UInt32(truncatingIfNeeded: value)
                carry = value >> 32
            }
            if carry > 0 { limbs.append(UInt32(carry)) }
        }
        if minusOne {
            var index = 0
            while limbs[index] == 0 {
                limbs[index] = UInt32.max
                index += 1
            }
            limbs[index] -= 1
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(limbs.count * 4)
        for limb in limbs.reversed() {
            bytes.append(UInt8(truncatingIfNeeded: limb >> 24))
            bytes.append(UInt8(truncatingIfNeeded: limb >> 16))
            bytes.append(UInt8(truncatingIfNeeded: limb >> 8))
            bytes.append(UInt8(truncatingIfNeeded: limb))
        }
        let first = bytes.firstIndex { $0 != 0 } ?? bytes.count
        return Array(bytes[first...])
    }
}
