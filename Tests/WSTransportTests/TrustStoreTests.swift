import COpenSSL
import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system trust store (Sources/README.md, Porting): without --cacert,
/// `TLSContext` trusts what OpenSSL's default paths hold
/// (SSL_CTX_set_default_verify_paths). On Linux those are the system's CA
/// certificates (Debian's ca-certificates links them under /usr/lib/ssl);
/// on Darwin they are OpenSSL's own directory, not the keychain.
final class TrustStoreTests: XCTestCase {
    func testOpenSSLsDefaultFileHoldsTheSystemsCertificates() throws {
        let file = String(cString: X509_get_default_cert_file())
        guard access(file, R_OK) == 0 else {
            throw XCTSkip("no CA bundle at OpenSSL's default file \(file) (Debian: the ca-certificates package)")
        }
        let bio = try XCTUnwrap(BIO_new_file(file, "r"), "\(file) opens")
        defer { BIO_free(bio) }
        var certificates = 0
        while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            certificates += 1
            X509_free(certificate)
        }
        ERR_clear_error()   // the end of the file is an error to PEM_read
        XCTAssertGreaterThan(certificates, 10, "\(file) holds the system's CA certificates")
    }
}
