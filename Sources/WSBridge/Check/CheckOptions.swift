import WSConnect
/// What --check does (wspipe(1): CHECKING A SERVER): the recordings, read
/// and prepared at start-up, and how each of their connections is opened;
/// the flags' defaults are the flag table's, which `Plan` sets here.
public struct CheckOptions {
    /// In the order given (a glob's files sorted by name).
    public var scripts: [CheckScript] = []
    /// For each script, for each of its connections: how to open it (the
    /// URL given, or the recording's; the HAR request's headers).
    public var connections: [[ClientOptions]] = []
    /// --check-timeout: the longest wait for each expected message.
    public var timeoutNanos: Int64 = 0
    /// --check-settle: after the last expected message, how long extra ones are watched for.
    public var settleNanos: Int64 = 0
    /// --check-order any.
    public var anyOrder = false
    /// --ignore KEYPATH.
    public var ignores: [KeyPathPattern] = []
    /// --allow-extra TYPE: types (at --type-key) of messages skipped.
    public var allowExtra: [String] = []
    /// --junit FILE.
    public var junitPath: String? = nil
    /// --repeat N: every recording is checked N times.
    public var repeats = 1
    /// --max-reply-p99.
    public var maxReplyP99Nanos: Int64? = nil
    /// --wait, --backoff, --jitter, --max-retries: the first connection is
    /// tried again while the server is not up yet.
    public var waitForFirstConnection = false
    public var backoff = BackoffPolicy()
    public var maxRetries: Int? = nil
    /// -w/--write-out: what to write about the run at its end.
    public var writeOut: WriteOutFormat? = nil

    public init() {}
}
