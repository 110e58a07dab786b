/// `ClientConnector`'s phase as a pure state machine: events in, actions
/// out (the pattern of `ClientLifecycle`); the connector performs the
/// actions with its dialer, streams and timer. One attempt:
///
///     idle ─start─▶ headerCommand ─headers─▶ dialing ─connected─▶ tls ─tlsDone─▶ upgrading(sending)
///            └─start (no command)──────────▶   ▲        └─connected (ws://)───────────▲     │ sent
///                                               │                                          ▼
///                                               └────────── redirect ─────────── upgrading(reading)
///     done ◀─accepted── upgrading(reading);  done ◀─failed, timedOut, cancel── any but done
///
/// Under one deadline (--connect-timeout), armed at start and cancelled in
/// `done`, which is final: nothing that arrives later does anything.
struct ConnectorPhases {
    enum Phase: Equatable {
        case idle
        /// --header-command runs; its headers go into every request.
        case headerCommand
        /// TCP (direct, raced), a Unix socket or a proxy tunnel.
        case dialing
        /// wss://: the TLS handshake on the new connection.
        case tls
        /// The HTTP upgrade (RFC 6455 §4.1): the request goes out, then the
        /// response is read.
        case upgrading(Upgrade)
        /// Succeeded, failed or cancelled.
        case done
    }

    enum Upgrade: Equatable { case sending, reading }

    enum Event: Equatable {
        case start(headerCommand: Bool)
        case headersReady
        /// The dialer has a connected fd; `secure`: wss://.
        case connected(secure: Bool)
        case tlsDone
        case requestSent
        /// -L: `Redirect` said to follow a 3xx; the next hop is dialled.
        case redirect
        /// The server's 101 passed every check.
        case accepted
        /// Any step failed (DNS, TCP, TLS, the handshake, a refused redirect).
        case failed
        /// --connect-timeout.
        case timedOut
        /// SIGINT while connecting: nobody is told.
        case cancel
    }

    enum Action: Equatable {
        case armDeadline
        case runHeaderCommand
        case dial
        /// Step the TLS handshake.
        case startTLS
        /// Send the upgrade request once the connection is writable.
        case sendRequest
        /// Read the response once it is readable.
        case awaitResponse
        /// The current hop's connection goes: a redirect dials anew.
        case closeStream
        /// Cancel the deadline, the command, the dialer; close the stream.
        case teardown
        /// Hand the connection over (the deadline cancelled, the fd unwatched).
        case succeed
        /// Tell the caller the attempt failed (after `teardown`).
        case reportFailure
    }

    private(set) var phase = Phase.idle

    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.done, _):
            return []
        case (.idle, .start(let command)):
            phase = command ? .headerCommand : .dialing
            return [.armDeadline, command ? .runHeaderCommand : .dial]
        case (.headerCommand, .headersReady):
            phase = .dialing
            return [.dial]
        case (.dialing, .connected(let secure)):
            phase = secure ? .tls : .upgrading(.sending)
            return [secure ? .startTLS : .sendRequest]
        case (.tls, .tlsDone):
            phase = .upgrading(.sending)
            return [.sendRequest]
        case (.upgrading(.sending), .requestSent):
            phase = .upgrading(.reading)
            return [.awaitResponse]
        case (.upgrading(.reading), .redirect):
            phase = .dialing
            return [.closeStream, .dial]
        case (.upgrading(.reading), .accepted):
            phase = .done
            return [.succeed]
        case (_, .failed), (_, .timedOut):
            phase = .done
            return [.teardown, .reportFailure]
        case (_, .cancel):
            phase = .done
            return [.teardown]
        default:
            // An event of another phase (a late callback): ignored.
            return []
        }
    }
}
