import XCTest
@testable import WSCore

final class Base64Tests: XCTestCase {
    /// RFC 4648 §10 test vectors.
    private let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    func testEncodeRFC4648Vectors() {
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
        }
    }

    func testDecodeRFC4648Vectors() {
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8), encoded)
        }
    }

    func testDecodeWithoutPadding() {
        XCTAssertEqual(Base64.decode("Zg"), Array("f".utf8))
        XCTAssertEqual(Base64.decode("Zm8"), Array("fo".utf8))
        XCTAssertEqual(Base64.decode("Zm9vYmE"), Array("fooba".utf8))
    }

    func testEncodeIntoAppends() {
        var out = Array("x=".utf8)
        [UInt8]([0xFF, 0xEE]).withUnsafeBytes { Base64.encode($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x=/+4=")
    }

    func testAllByteValuesRoundTrip() {
        let bytes = (0..<256).map { UInt8($0) } + (0..<256).map { UInt8(255 - $0) }
        for count in [0, 1, 2, 3, 4, 5, 511, 512] {
            let slice = Array(bytes[..<count])
            XCTAssertEqual(Base64.decode(Base64.encode(slice)), slice)
        }
    }

    func testInvalidInputRejected() {
        for text in ["Zg=", "Z", "Zm9vY", "Zm9v=", "Z===", "Zg==Zg==", "Zm 9v", "Zm9v\n", "Zm-v", "Zm_v", "=Zg=",
                     "Zm9\u{e9}"] {
            XCTAssertNil(Base64.decode(text), "'\(text)' must be rejected")
        }
    }

    func testSixteenByteKeyLength() {
        XCTAssertEqual(Base64.decode("dGhlIHNhbXBsZSBub25jZQ==")?.count, 16)
        XCTAssertEqual(Base64.encode([UInt8](repeating: 0, count: 16)), "AAAAAAAAAAAAAAAAAAAAAA==")
    }
}
