import WSMessages
/// What makes wspipe a scripted peer (wspipe(1): SCRIPTED PEER): answers,
/// an application heartbeat, wrapped stdin lines, a recording and a replay.
/// Shared by the client and the server; empty unless one of the flags is given.
public struct ScriptOptions: Sendable {
    /// --answer TYPE=TEMPLATE, in the order given.
    public var answers: [AnswerRule] = []
    /// --heartbeat: sent every `heartbeatIntervalNanos` on each connection.
    public var heartbeat: MessageTemplate? = nil
    public var heartbeatIntervalNanos: Int64 = 0
    /// --heartbeat-timeout: a connection on which nothing arrives for this
    /// long is dead; nil = off.
    public var heartbeatTimeoutNanos: Int64? = nil
    /// --wrap: each stdin line (raw text) is sent as this template's message.
    public var wrap: MessageTemplate? = nil
    /// --record FILE.
    public var recordPath: String? = nil
    /// --replay FILE, read and checked at start-up.
    public var replay: Recording? = nil
    /// --replay-speed: recorded gaps are divided by this.
    public var replaySpeed: Double = 0

    public init() {}

    /// No flag of these given: the sessions skip every hook.
    var isEmpty: Bool {
        answers.isEmpty && heartbeat == nil && heartbeatTimeoutNanos == nil && wrap == nil && recordPath == nil
            && replay == nil
    }
}

/// --answer TYPE=TEMPLATE: an incoming JSON message whose type (at
/// --type-key) is TYPE is answered with TEMPLATE on its connection.
public struct AnswerRule: Sendable, Equatable {
    public var type: String
    public var template: MessageTemplate

    public init(type: String, template: MessageTemplate) {
        self.type = type
        self.template = template
    }
}

/// Where an outgoing message came from, as --record writes it: messages
/// wspipe made itself from a flag carry it ("src"), and --replay leaves them
/// out, since the replaying run makes its own from its own flags.
enum MessageSource: String {
    /// stdin (wrapped or not), a replay, a --relay or --exec message: no "src".
    case input
    case onConnect = "on_connect"
    case answer
    case heartbeat
}

/// 1, 2, 3... for `${seq}`: the next number each time a template that uses
/// it is rendered, counted per connection (wspipe(1): TEMPLATES). A server
/// keeps one per client; a client restarts its one when a connection ends,
/// so the next connection (and what is rendered while waiting for it) counts
/// from 1 again, as a server that numbers per connection expects.
final class SequenceCounter {
    private var last = 0

    func next() -> Int {
        last += 1
        return last
    }

    /// A new connection counts from 1.
    func restart() {
        last = 0
    }
}
