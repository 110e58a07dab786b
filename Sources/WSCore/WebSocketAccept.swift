import COpenSSL

/// The GUID of RFC 6455 §1.3, appended to the client's key.
let webSocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/// Sec-WebSocket-Accept for a key (SHA-1 via OpenSSL's low-level API, which
/// needs no library initialisation, + base64), RFC 6455 §1.3:
/// "concatenate this with the Globally Unique Identifier ... A SHA-1 hash
/// (160 bits), base64-encoded ... of this concatenation is then returned in
/// the server's handshake."
public func webSocketAccept(forKey key: String) -> String {
    let input = Array((key + webSocketGUID).utf8)
    var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
    input.withUnsafeBufferPointer { source in
        digest.withUnsafeMutableBufferPointer { target in
            wspipe_sha1(source.baseAddress, source.count, target.baseAddress)
        }
    }
    return Base64.encode(digest)
}
