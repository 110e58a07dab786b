/// Which end of the connection we are. It decides masking (RFC 6455 §5.1):
/// "a client MUST mask all frames that it sends to the server", and "a server
/// MUST NOT mask any frames that it sends to the client".
public enum Role: Sendable {
    case client
    case server
}
