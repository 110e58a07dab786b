import WSMessages
import WSConnect
/// What a client session tells about its lifecycle as it goes, for the
/// interactive mode's transcript (`InteractiveFrontend`). Called on the loop,
/// before the lifecycle handles the event.
protocol ClientSessionObserver: AnyObject {
    func connecting(url: String, attempt: Int)
    /// The handshake succeeded (HTTP 101), with the extensions the server accepted.
    func connected(url: String, subprotocol: String?, extensions: String?)
    /// The connection ended; `byClient` when wspipe had started the close.
    func disconnected(_ cause: Disconnect, byClient: Bool)
    /// The next attempt starts after `delayNanos`; `cause` ended the
    /// connection (`wasOpen`) or failed the attempt.
    func retrying(attempt: Int, delayNanos: Int64, cause: Disconnect, wasOpen: Bool)
    /// A message the session sent on its own: --on-connect, --on-reconnect,
    /// or a message sent again for its --ack.
    func sent(_ message: OutgoingMessage)
    func pong(_ payload: UnsafeRawBufferPointer)
    /// A keepalive ping's round trip.
    func roundTrip(_ nanos: Int64)
    /// The message about to be shown is a reply that came this long after its request.
    func replied(_ nanos: Int64)
}
