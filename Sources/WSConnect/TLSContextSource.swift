import WSTransport

/// The TLS context of a client session, made once and shared by its
/// attempts: at the start for a wss:// URL (so a bad --cacert is reported
/// before anything is sent), or when a redirect first leads to wss://.
package final class TLSContextSource {
    private let options: TLSClientOptions
    private var made: TLSContext?

    package init(options: TLSClientOptions) {
        self.options = options
    }

    package func context() throws -> TLSContext {
        if let made { return made }
        let context = try TLSContext.client(options)
        made = context
        return context
    }
}
