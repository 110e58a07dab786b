/// The client side of a SOCKS5 CONNECT (RFC 1928), with username/password
/// authentication (RFC 1929) when credentials are given.
///
/// Send `greeting`, then feed the proxy's bytes to `receive` and send what
/// it returns, until `.established` or `.failed`.
public struct SOCKS5Handshake: Sendable {
    /// DST.ADDR (RFC 1928 §5): an address resolved by us, or a name the proxy resolves (socks5h).
    public enum Target: Equatable, Sendable {
        case ipv4([UInt8])
        case ipv6([UInt8])
        case domain(String)
    }

    public enum Outcome: Equatable, Sendable {
        case needMoreData
        case send([UInt8])
        /// The tunnel is open; `leftover` came from the target (normally empty).
        case established(leftover: [UInt8])
        case failed(Failure)
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// METHOD X'FF': none of the offered methods is acceptable (§3).
        case noAcceptableMethod(offeredCredentials: Bool)
        /// RFC 1929 §2: a STATUS other than X'00'.
        case authenticationFailed
        /// REP other than X'00' (§6).
        case refused(code: UInt8)
        case invalid(String)

        /// What went wrong, as the end of "proxy X refused the tunnel to Y: ...".
        public var description: String {
            switch self {
            case .noAcceptableMethod(let offered):
                return offered ? "it accepts none of our authentication methods"
                    : "it requires a user name and password (give --proxy-user-file, or USER:PASSWORD@ in the proxy URL)"
            case .authenticationFailed: return "user name or password rejected"
            case .refused(let code): return SOCKS5Handshake.replyText(code)
            case .invalid(let reason): return reason
            }
        }
    }

    /// §6: the meaning of each REP value.
    public static func replyText(_ code: UInt8) -> String {
        switch code {
        case 0x00: return "succeeded"
        case 0x01: return "general SOCKS server failure"
        case 0x02: return "connection not allowed by ruleset"
        case 0x03: return "network unreachable"
        case 0x04: return "host unreachable"
        case 0x05: return "connection refused"
        case 0x06: return "TTL expired"
        case 0x07: return "command not supported"
        case 0x08: return "address type not supported"
        default: return "unassigned reply code \(code)"
        }
    }

    private enum State { case method, authentication, reply, done }

    private let target: Target
    private let port: UInt16
    private let credentials: (user: [UInt8], password: [UInt8])?
    private var state = State.method
    private var buffer: [UInt8] = []

    /// Names, user names and passwords are limited to 255 bytes (one length octet).
    public init(target: Target, port: UInt16, credentials: (user: String, password: String)? = nil) throws(Failure) {
        if case .domain(let name) = target, name.utf8.count > 255 || name.isEmpty {
            throw .invalid("host name must be 1 to 255 bytes")
        }
        if let c = credentials, c.user.utf8.count > 255 || c.password.utf8.count > 255 || c.user.isEmpty {
            throw .invalid("user name must be 1 to 255 bytes and the password at most 255 (RFC 1929)")
        }
        self.target = target
        self.port = port
        self.credentials = credentials.map { (Array($0.user.utf8), Array($0.password.utf8)) }
    }

    /// §3: VER 5, the methods we offer: no authentication (X'00') and, with
    /// credentials, username/password (X'02').
    public var greeting: [UInt8] {
        credentials == nil ? [0x05, 0x01, 0x00] : [0x05, 0x02, 0x00, 0x02]
    }

    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        buffer.append(contentsOf: bytes)
        switch state {
        case .method: return methodSelected()
        case .authentication: return authenticated()
        case .reply: return replied()
        case .done: return .failed(.invalid("data after the handshake"))
        }
    }

    private mutating func methodSelected() -> Outcome {
        guard let answer = take(2) else { return .needMoreData }
        guard answer[0] == 0x05 else { return fail(.invalid("not a SOCKS5 server (version \(answer[0]))")) }
        switch answer[1] {
        case 0x00:
            return sendRequest()
        case 0x02 where credentials != nil:
            state = .authentication
            return .send(authenticationRequest())
        case 0xFF:
            return fail(.noAcceptableMethod(offeredCredentials: credentials != nil))
        default:
            return fail(.invalid("proxy chose a method we did not offer (\(answer[1]))"))
        }
    }

    /// RFC 1929 §2: VER 1, ULEN, UNAME, PLEN, PASSWD.
    private func authenticationRequest() -> [UInt8] {
        guard let (user, password) = credentials else { return [] }
        return [0x01, UInt8(user.count)] + user + [UInt8(password.count)] + password
    }

    /// RFC 1929 §2: VER 1, STATUS. A reply of another version is not an
    /// answer to our request, whatever its status byte says.
    private mutating func authenticated() -> Outcome {
        guard let answer = take(2) else { return .needMoreData }
        guard answer[0] == 0x01 else { return fail(.invalid("malformed authentication reply (version \(answer[0]))")) }
        guard answer[1] == 0x00 else { return fail(.authenticationFailed) }
        return sendRequest()
    }

    /// §4: VER 5, CMD CONNECT (1), RSV, ATYP, DST.ADDR, DST.PORT (network order).
    private mutating func sendRequest() -> Outcome {
        state = .reply
        var request: [UInt8] = [0x05, 0x01, 0x00]
        switch target {
        case .ipv4(let address): request += [0x01] + address
        case .ipv6(let address): request += [0x04] + address
        case .domain(let name): request += [0x03, UInt8(name.utf8.count)] + Array(name.utf8)
        }
        request += [UInt8(port >> 8), UInt8(port & 0xFF)]
        // Whatever came with the method selection is the reply's start.
        return buffer.isEmpty ? .send(request) : fail(.invalid("data before our request"))
    }

    /// §6: VER, REP, RSV, ATYP, BND.ADDR, BND.PORT; the length depends on ATYP.
    private mutating func replied() -> Outcome {
        guard buffer.count >= 5 else { return .needMoreData }
        guard buffer[0] == 0x05 else { return fail(.invalid("malformed reply (version \(buffer[0]))")) }
        guard buffer[1] == 0x00 else { return fail(.refused(code: buffer[1])) }
        let addressLength: Int
        switch buffer[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03: addressLength = 1 + Int(buffer[4])
        default: return fail(.invalid("reply with unknown address type \(buffer[3])"))
        }
        guard take(4 + addressLength + 2) != nil else { return .needMoreData }
        state = .done
        let leftover = buffer
        buffer.removeAll()
        return .established(leftover: leftover)
    }

    /// The first `count` buffered bytes, removed, once that many have arrived.
    private mutating func take(_ count: Int) -> [UInt8]? {
        guard buffer.count >= count else { return nil }
        let head = Array(buffer[..<count])
        buffer.removeFirst(count)
        return head
    }

    private mutating func fail(_ failure: Failure) -> Outcome {
        state = .done
        return .failed(failure)
    }
}
