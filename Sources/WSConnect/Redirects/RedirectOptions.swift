/// -L/--location, --max-redirs and --location-downgrade (wspipe(1):
/// OPTIONS, Connection): whether and how far a 3xx answer to the upgrade
/// request is followed.
public struct RedirectOptions: Sendable, Equatable {
    /// -L: follow 301, 302, 303, 307 and 308.
    public var follow = false
    /// --max-redirs: redirects followed within one connection attempt
    /// (its default is the flag table's; `Plan` sets it).
    public var maxRedirects = 0
    /// --location-downgrade: a redirect from wss:// to ws:// is followed too.
    public var allowDowngrade = false

    public init() {}
}
