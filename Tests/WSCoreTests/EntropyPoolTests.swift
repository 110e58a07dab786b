import XCTest
@testable import WSCore

final class EntropyPoolTests: XCTestCase {
    func testFixedPoolRepeatsItsBytes() {
        var pool = EntropyPool(fixed: [0x37, 0xFA, 0x21, 0x3D])
        XCTAssertEqual(pool.next32(), 0x37FA_213D)
        XCTAssertEqual(pool.next32(), 0x37FA_213D)
        XCTAssertEqual(pool.fill(6), [0x37, 0xFA, 0x21, 0x3D, 0x37, 0xFA])
        XCTAssertEqual(pool.next32(), 0x213D_37FA)
    }

    func testDefaultPoolsDiffer() {
        var a = EntropyPool(), b = EntropyPool()
        XCTAssertNotEqual(a.fill(32), b.fill(32), "two OS-seeded pools gave the same 32 bytes")
    }

    func testDefaultPoolRefillsAndLooksRandom() {
        var pool = EntropyPool()
        var keys = Set<UInt32>()
        var ones = 0
        // 5000 keys = 20000 bytes: several 4 KiB refills.
        for _ in 0..<5000 {
            let key = pool.next32()
            keys.insert(key)
            ones += key.nonzeroBitCount
        }
        XCTAssertGreaterThan(keys.count, 4990, "keys repeat far too often")
        let fraction = Double(ones) / Double(5000 * 32)
        XCTAssertEqual(fraction, 0.5, accuracy: 0.02)
        XCTAssertEqual(pool.fill(5000).count, 5000)
    }

    /// RFC 8439 §2.3.2 block function test vector.
    func testChaCha20BlockVector() {
        let keyBytes = (0..<32).map { UInt8($0) }
        let key = (0..<8).map { i in
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(keyBytes[i * 4 + $1]) << (8 * UInt32($1)) }
        }
        var out = [UInt8](repeating: 0, count: 64)
        out.withUnsafeMutableBytes {
            ChaCha20.block(key: key, counterAndNonce: (1, 0x0900_0000, 0x4A00_0000, 0), into: $0)
        }
        XCTAssertEqual(out, hex("""
            10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e
            d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e
            """))
    }
}
