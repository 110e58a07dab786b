import WSCore
import WSTransport
import WSTerminal

/// Accepting clients: the listener, the admission of each upgrade request
/// (path, origin, room), and what a refusal or a failed upgrade says.
extension ServerSession {
    func listen() throws {
        if let cert = options.certFile, let key = options.keyFile {
            tlsContext = try TLSContext.server(certFile: cert, keyFile: key, clientCAFile: options.clientCAFile,
                                               keyLogFile: options.keyLogFile)
        }
        let l = try options.address.openListener()
        listener = l
        boundPort = l.port
        if let command = options.exec {
            let table = ExecTable(command: command, shell: shell, tls: tlsContext != nil,
                                  maxPrograms: options.maxPrograms, serverPort: { [unowned self] in self.boundPort })
            table.onReleased = { [unowned self] in self.handle(.clientLeft(remaining: self.activeCount)) }
            execs = table
        }
        let shown = options.address.bound(to: l)
        // Said unless -q: with port 0 above all, the user needs the port.
        log.warning("listening on \(shown.url(secure: tlsContext != nil))")
        loop.watch(l.fd, .read) { [unowned self] _ in self.acceptAll() }
    }

    func acceptAll() {
        guard let listener else { return }
        while gate.isWatching {
            guard let (fd, peer) = listener.accept() else {
                if let error = listener.lastAcceptError { handleGate(.acceptFailed(error.description)) }
                return
            }
            handleGate(.accepted)
            let id = nextID
            nextID += 1
            do {
                upgrading[id] = try ServerClient(
                    id: id, fd: fd, peer: peer, tlsContext: tlsContext, loop: loop,
                    maxMessageSize: bridge.maxMessageSize, compress: options.compress,
                    responseHeaders: options.responseHeaders,
                    handshakeTimeoutNanos: options.handshakeTimeoutNanos,
                    accept: { [unowned self] client, request in self.accept(request, from: client) },
                    events: { [unowned self] client, event in self.clientEvent(client, event) },
                    opened: { [unowned self] client in self.clientOpened(client) },
                    failedUpgrade: { [unowned self] client, why in self.upgradeFailed(client, why) })
            } catch {
                log.warning("client \(id) (\(peer)): \(error)")
                TCPStream(fd: fd).close()
            }
            updateAccepting()
        }
    }

    /// --max-clients bounds the sockets as well as the clients: while that
    /// many connections are in their handshake, new ones wait in the kernel's
    /// listen queue instead of being accepted.
    func updateAccepting() {
        handleGate(.handshakes(upgrading.count))
    }

    func handleGate(_ event: AcceptGate.Event) {
        for action in gate.handle(event) {
            switch action {
            case .watch:
                if let listener { loop.watch(listener.fd, .read) { [unowned self] _ in self.acceptAll() } }
            case .unwatch:
                if let listener { loop.unwatch(listener.fd) }
            case .armRetryTimer(let nanos):
                gateTimer = loop.schedule(afterNanos: nanos) { [unowned self] in
                    self.gateTimer = nil
                    self.handleGate(.retryTimerFired)
                }
            case .cancelRetryTimer:
                if let gateTimer { loop.cancel(gateTimer) }
                gateTimer = nil
            case .reportPaused(let reason, let first):
                let text = "cannot accept connections (\(reason)); new ones wait in the listen queue, trying again every \(AcceptGate.retryNanos / 1_000_000)ms"
                if first { log.warning(text + " (raise the limit with ulimit -n, or bound the clients with --max-clients)") } else { log.info(text) }
                shell.events.emit(ServerEvents.acceptPaused(reason: reason))
            case .reportResumed:
                log.info("accepting connections again")
            }
        }
    }

    /// Admits an upgrade request (path, origin, room) and, with --exec,
    /// starts its program before the 101: past --max-programs, or when the
    /// program cannot start, the client is answered 503.
    func accept(_ request: UpgradeRequest, from client: ServerClient) -> Result<String?, ServerClient.HTTPRefusal> {
        let accepting = lifecycle.phase == .serving && !(options.once && servedOne)
        if let refusal = admission.refusal(for: request, openClients: registry.count, accepting: accepting) {
            return .failure(refusal)
        }
        if let execs, let refusal = execs.prepare(id: client.id, peer: client.peer, request: request) {
            return .failure(refusal)
        }
        servedOne = true
        return .success(request.protocols.first { options.protocols.contains($0) })
    }

    func upgradeFailed(_ client: ServerClient, _ why: ServerClient.UpgradeFailure) {
        upgrading[client.id] = nil
        updateAccepting()
        switch why {
        case .refused(let refusal):
            shell.events.emit(ServerEvents.clientRefused(id: client.id, peer: client.peer, status: refusal.status,
                                                         reason: refusal.detail ?? refusal.reason))
        case .tls(let text):
            shell.events.emit(ServerEvents.clientRefused(id: client.id, peer: client.peer, status: nil, reason: text))
        case .abandoned:
            break
        }
        // A malformed request's reason may quote the request.
        let line = "client \(client.id) (\(client.peer)) refused: \(TerminalEscaping.escaping(why.description))"
        if case .refused(let refusal) = why, let after = refusal.warning {
            log.warning(line + after)
        } else {
            log.info(line)
        }
    }

    func stopAccepting() {
        handleGate(.stop)
        if let l = listener {
            l.close()
            listener = nil
        }
        for client in upgrading.values { client.cancel() }
        upgrading.removeAll()
    }
}
