import WSTransport

/// The end of a run (`OutputDrain`): the destinations are written out on the
/// loop, where signals still work, within --close-timeout of no progress;
/// then files and command pipes are closed and the commands waited for.
extension SessionShell {
    /// The session is over (its connections are gone): write out what its
    /// messages left, then stop the loop.
    func end() {
        guard drain.phase == .running else { return }
        output.routes.flushAll()
        output.routes.whenEmptied { [unowned self] in self.handleDrain(.written) }
        handleDrain(.sessionEnded(unwritten: output.routes.unwrittenBytes, hurry: interrupts > 1,
                                  now: loop.nowNanos))
    }

    func handleDrain(_ event: OutputDrain.Event) {
        for action in drain.handle(event) { performDrain(action) }
    }

    /// SIGCHLD: a |COMMAND the drain waits for may be gone.
    func commandsMayHaveExited() {
        guard drain.phase == .awaitingCommands else { return }
        handleDrain(.commandsExited(running: output.routes.runningCommands.count))
    }

    private func performDrain(_ action: OutputDrain.Action) {
        switch action {
        case .armTimer(let nanos):
            if let drainTimer { loop.cancel(drainTimer) }
            drainTimer = loop.schedule(afterNanos: nanos) { [unowned self] in
                self.drainTimer = nil
                self.handleDrain(.timerFired(unwritten: self.output.routes.unwrittenBytes, now: self.loop.nowNanos))
            }
        case .cancelTimer:
            if let drainTimer { loop.cancel(drainTimer) }
            drainTimer = nil
        case .abandonOutput:
            abandonOutput()
        case .closeDestinations:
            output.routes.close()
            handleDrain(.closed(commandsRunning: output.routes.runningCommands.count))
        case .stopCommands:
            for route in output.routes.runningCommands {
                log.warning("route \(route.name) still running --close-timeout after its input ended; stopped with SIGTERM")
                route.stopCommand()
                status = status.combined(with: .runtimeError)
            }
        case .finish:
            loop.stop()
        }
    }

    /// Reports what could not be written, by destination, and drops it (exit status 1).
    private func abandonOutput() {
        output.routes.flushAll()   // a last try: what goes now is not lost
        for destination in output.routes.destinations where !destination.isEmpty {
            let dropped = destination.abandonPending()
            let what = destination.lineSeparator == nil ? "\(dropped.bytes) bytes of output" : "\(dropped.lines) line(s) of output"
            log.warning("\(what) to \(destination.name) could not be written: no progress within --close-timeout")
            status = status.combined(with: .runtimeError)
        }
    }
}
