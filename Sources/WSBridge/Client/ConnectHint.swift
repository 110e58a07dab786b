import WSTerminal
import WSConnect

/// The likely fix for a failed connection, where there is one
/// (wspipe(1): OPTIONS, Connection): the mistakes people make in their first
/// minutes with a WebSocket client, recognised from what the failure says.
enum ConnectHint {
    /// `authorized`: the request carried an Authorization header;
    /// `challenge`: the refusal's WWW-Authenticate header.
    static func hint(for cause: Disconnect, secure: Bool, authorized: Bool = false, challenge: String? = nil) -> String? {
        switch cause {
        case .tlsFailed(let text):
            if text.contains("certificate verify failed") {
                return "to trust this server's certificate, give its CA with --cacert FILE, or skip verification with -k"
            }
            if text.contains("wrong version number") || text.contains("packet length too long")
                || text.contains("record layer failure") || text.contains("http request") {
                return "the server answered without TLS: if it is a plain WebSocket endpoint, use ws:// instead of wss://"
            }
            if text.contains("connection closed by peer") {
                return "the server hung up during the TLS handshake: if it is a plain WebSocket endpoint, use ws://"
            }
            return nil
        case .invalidHandshake(let text):
            guard !secure else { return nil }
            if text.contains("malformed") || text.contains("closed before the server answered") {
                return "if this port expects TLS, use wss:// instead of ws://"
            }
            return nil
        case .unreachable(let text):
            // A TLS server resets a plain request it cannot read as TLS.
            guard !secure, text.hasPrefix("reading the handshake") else { return nil }
            return "if this port expects TLS, use wss:// instead of ws://"
        case .handshakeRejected(let status, _, let body):
            // nginx and Apache answer a plain request on a TLS port with 400 and say so in the body.
            if status == 400, !secure, body.contains("plain HTTP request was sent to HTTPS port")
                || body.contains("speaking plain HTTP to an SSL-enabled server port") {
                return "this port expects TLS: use wss:// instead of ws://"
            }
            if (status == 401 || status == 403) && authorized {
                return "the server refused the credential that was sent (Authorization header): is it valid, unexpired and for this server?"
            }
            if status == 401, let challenge, let scheme = challenge.split(whereSeparator: { $0 == " " || $0 == "," }).first {
                return hint(forChallenge: scheme.lowercased(), String(scheme))
            }
            return hint(forStatus: status)
        default:
            return nil
        }
    }

    /// What a 401's WWW-Authenticate asks for (its first scheme).
    private static func hint(forChallenge scheme: String, _ spelled: String) -> String {
        switch scheme {
        case "basic":
            return "the server asks for a user name and password (WWW-Authenticate: Basic): "
                + "--user-file FILE, or --user USER:PASSWORD"
        case "bearer":
            return "the server asks for a token (WWW-Authenticate: Bearer): -H 'Authorization: Bearer TOKEN'"
        default:
            return "the server asks for \(TerminalEscaping.escaping(spelled)) authorization (WWW-Authenticate), "
                + "which wspipe does not compute: give the header with -H 'Authorization: ...'"
        }
    }

    private static func hint(forStatus status: Int) -> String? {
        switch status {
        case 200...299:
            return "an HTTP server answered (status \(status)) but did not upgrade: is the path a WebSocket endpoint?"
        case 301, 302, 303, 307, 308:
            return "the server redirects (status \(status)): -L follows redirects"
        case 401, 403:
            return "the server refused the request: does it need a credential, e.g. -H 'Authorization: Bearer TOKEN'?"
        case 404:
            return "no WebSocket endpoint at this path: check the URL's path"
        case 426:
            return "the server wants another WebSocket version or protocol (see --protocol)"
        default:
            return nil
        }
    }
}
