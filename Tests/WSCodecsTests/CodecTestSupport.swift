import WSCodecs
import XCTest

/// Hex text to bytes ("83 01 02" or "830102").
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0 ... $0 + 1]), radix: 16)! }
}

func hex(_ data: [UInt8]) -> String {
    data.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

extension Transcoder {
    /// The JSON of a message, or the error.
    func json(_ message: [UInt8]) -> Result<String, CodecError> {
        message.withUnsafeBytes { raw in
            do throws(CodecError) {
                return .success(String(decoding: try decode(raw), as: UTF8.self))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The message of a JSON text, or the error.
    func message(_ json: String) -> Result<[UInt8], CodecError> {
        Array(json.utf8).withUnsafeBytes { raw in
            do throws(CodecError) {
                return .success(Array(try encode(raw)))
            } catch {
                return .failure(error)
            }
        }
    }
}

/// A deterministic generator for the property tests (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
