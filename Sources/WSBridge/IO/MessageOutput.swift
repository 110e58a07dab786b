import WSTransport
import WSJSON
import WSMessages

/// Where the lines of incoming messages go (wspipe(1): LINES AND MESSAGES; ROUTING), shared by the
/// client and the server: the route table, the formatters, and what a failed
/// destination means. Each line goes to exactly one destination.
final class MessageOutput {
    let routes: RouteTable
    private let formatters: LineFormatters
    /// Whether a text message must be classified (type routes, or `$text`
    /// routed elsewhere than the fallback); otherwise it goes straight out.
    let classifiesText: Bool
    private let log: Diagnostics
    /// --route-errors ignore: a route that fails is not reported on stderr.
    private let quietRouteErrors: Bool
    private(set) var failures = 0
    /// stdout closed or failed: `nil` for a reader that went away (`| head`,
    /// a normal way to stop reading), else the error to report.
    var onStdoutLost: ((String?) -> Void)?
    /// Interactive mode: the transcript, which shows the messages bound for
    /// the terminal (InteractiveFrontend). Not weak: a weak load on every
    /// message would cost the pipe mode, and the frontend holds nothing back.
    var display: MessageDisplay?

    init(bridge: BridgeOptions, loop: EventLoop, log: Diagnostics, events: EventSink) throws(RouteSpecError) {
        var failed: ((Destination, String) -> Void)?
        routes = try RouteTable(routes: bridge.routes, typeKey: bridge.typeKey, loop: loop) { failed?($0, $1) }
        formatters = bridge.formatters(anyTerminal: routes.destinations.contains { $0.isTerminal })
        classifiesText = routes.usesTypeKey || routes.textDestination !== routes.fallback
        self.log = log
        quietRouteErrors = bridge.routeErrorsIgnored
        events.destination = routes.eventDestination
        failed = { [unowned self] in self.destinationFailed($0, $1) }
        // Event lines end in a newline whatever the format (EventLine).
        let separator = bridge.format == .json ? 10 : bridge.separator
        for destination in routes.destinations where destination !== routes.eventDestination {
            destination.lineSeparator = separator
        }
    }

    /// The destination of a text message; `isValidJSON` when already known.
    func destination(forText payload: UnsafeRawBufferPointer, isValidJSON: Bool? = nil) -> Destination {
        guard classifiesText else { return routes.fallback }
        let valid: Bool
        if let isValidJSON { valid = isValidJSON } else if case .valid = JSONScanner.validate(payload) { valid = true } else { valid = false }
        return valid ? routes.destination(forJSON: payload) : routes.textDestination
    }

    /// `verdict`: what the JSON check already answered for these bytes, -1
    /// when nothing is known (`JSONScanner.validate(_:verdict:)`).
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, to destination: Destination) {
        if let display, display.show(payload, binary: false, goingTo: destination) { return }
        formatters.appendText(payload, verdict: verdict, to: destination)
    }

    /// A text message that needs no classification: to the fallback route
    /// (used without a retain/release pair: UnretainedReferences.swift).
    func appendToFallback(_ payload: UnsafeRawBufferPointer, verdict: Int) {
        unretainedFallback.use { appendText(payload, verdict: verdict, to: $0) }
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer) {
        if let display, display.show(payload, binary: true, goingTo: routes.binaryDestination) { return }
        formatters.appendBinary(payload, to: routes.binaryDestination)
    }

    /// --tag: the line names the client it came from (`"$client":N`).
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, taggedWith client: Int, to destination: Destination) {
        if let display, display.show(payload, binary: false, goingTo: destination) { return }
        formatters.appendText(payload, verdict: verdict, taggedWith: client, to: destination)
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer, taggedWith client: Int) {
        if let display, display.show(payload, binary: true, goingTo: routes.binaryDestination) { return }
        formatters.appendBinary(payload, taggedWith: client, to: routes.binaryDestination)
    }

    /// A failed route makes the status 1 unless --route-errors ignore. (The
    /// destinations are written out and closed by the shell's `OutputDrain`.)
    /// Every failed destination says how many of its lines were dropped
    /// (a route, not with --route-errors ignore); a stdout whose reader went
    /// away (`| head -1`) does not change the status.
    func reportFailures(_ status: inout ExitStatus, ignoringRouteErrors: Bool) {
        if failures > 0 && !ignoringRouteErrors { status = status.combined(with: .runtimeError) }
        for destination in routes.destinations where destination.failed && destination.droppedLines > 0 {
            let count = destination.droppedLines
            if destination === routes.fallback && destination.spec == .stdout {
                let why = destination.failureReason == "closed" ? "stdout was closed" : "writing stdout failed"
                log.warning("\(why): \(count) received message(s) not written")
            } else if !quietRouteErrors {
                log.warning("route to \(destination.name): \(count) message(s) not written (\(destination.failureReason ?? "failed"))")
            }
        }
    }

    /// Reported once with its name (not with --route-errors ignore); the
    /// other routes keep working.
    private func destinationFailed(_ destination: Destination, _ reason: String) {
        guard destination === routes.fallback, destination.spec == .stdout else {
            if quietRouteErrors {
                log.info("route to \(destination.name) failed: \(reason); its lines are dropped from now on")
            } else {
                log.warning("route to \(destination.name) failed: \(reason); its lines are dropped from now on")
            }
            failures += 1
            return
        }
        onStdoutLost?(reason == "closed" ? nil : "writing stdout: \(reason)")
    }
}
