import WSTransport
import WSJSON

/// Routing by message type (wspipe(1): ROUTING): which `Destination` each incoming
/// message's line goes to. Every line goes to exactly one place; a destination
/// that fails is reported once and the others carry on.
public final class RouteTable {
    /// Every distinct destination, in the order the routes named them
    /// (defaults last).
    public private(set) var destinations: [Destination] = []
    public let fallback: Destination
    public let textDestination: Destination
    public let binaryDestination: Destination
    public let eventDestination: Destination
    /// Called when every destination that was backed up has drained below the low water.
    public var onDrained: (() -> Void)?
    public private(set) var hadFailure = false

    /// The type key as UTF-8 path components, and the type routes' values
    /// side by side in one buffer (`typeBounds[i]` is route i's slice), so
    /// matching touches no String, allocates nothing and retains nothing.
    private let typePath: [[UInt8]]
    private let typeBytes: [UInt8]
    private let typeBounds: [Range<Int>]
    private let typeTargets: [Destination]
    /// Unescaped type value, reused (only for types spelled with escapes).
    private var scratch: [UInt8] = []
    private let onFailure: (Destination, String) -> Void
    private let loop: EventLoop
    /// What children write to pipes of their own instead of wspipe's
    /// stdout and stderr, copied there (`ChildOutput`).
    private var relays: [ChildOutput] = []

    /// Opens files, starts commands (sh -c, stdin = a pipe, stdout/stderr inherited),
    /// creates one Destination per distinct spec (two routes to the same file share it).
    /// Default routes: "*" -> stdout, "$event" -> stderr, unless overridden.
    ///
    /// Fails (after releasing whatever it had opened) on two routes for the same
    /// VALUE, an fd:N that is not open, a file that cannot be opened, a command
    /// that cannot be started.
    public init(routes: [RouteSpec], typeKey: [String], loop: EventLoop,
                onFailure: @escaping (Destination, String) -> Void) throws(RouteSpecError) {
        self.onFailure = onFailure
        self.loop = loop
        typePath = typeKey.map { Array($0.utf8) }

        var routes = routes
        try RouteTable.checkDuplicates(routes)
        if !routes.contains(where: { $0.match == .fallback }) {
            routes.append(RouteSpec(match: .fallback, destination: .stdout))
        }
        if !routes.contains(where: { $0.match == .event }) {
            routes.append(RouteSpec(match: .event, destination: .stderr))
        }

        var opener = DestinationOpener(loop: loop)
        var chosen: [(match: RouteMatch, destination: Destination)] = []
        do {
            for route in routes {
                chosen.append((route.match, try opener.destination(for: route.destination)))
            }
        } catch {
            opener.releaseAll()
            throw error
        }

        func target(_ match: RouteMatch) -> Destination? {
            chosen.first(where: { $0.match == match })?.destination
        }
        let fallback = target(.fallback)!
        self.fallback = fallback
        textDestination = target(.text) ?? fallback
        binaryDestination = target(.binary) ?? fallback
        eventDestination = target(.event)!
        var bytes: [UInt8] = []
        var bounds: [Range<Int>] = []
        var targets: [Destination] = []
        for case (.type(let value), let destination) in chosen {
            let start = bytes.count
            bytes.append(contentsOf: value.utf8)
            bounds.append(start ..< bytes.count)
            targets.append(destination)
        }
        typeBytes = bytes
        typeBounds = bounds
        typeTargets = targets
        destinations = opener.opened
        relays = opener.relays

        for destination in destinations { observe(destination) }
    }

    private func observe(_ destination: Destination) {
        destination.onFailure = { [weak self] failed, reason in self?.destinationFailed(failed, reason) }
        destination.onDrained = { [weak self] in self?.destinationDrained() }
    }

    /// wspipe's stdout or stderr (`.stdout`, `.stderr`) as a destination,
    /// opened now if no route goes there: where a child started elsewhere
    /// (`--exec`, `--header-command`) has what it writes to its own pipe copied.
    func inheritedDestination(_ spec: DestinationSpec) throws(RouteSpecError) -> Destination {
        let spec = DestinationOpener.canonical(spec)
        if let existing = destinations.first(where: { $0.spec == spec }) { return existing }
        var opener = DestinationOpener(loop: loop)
        let destination = try opener.destination(for: spec)
        destinations.append(destination)
        observe(destination)
        return destination
    }

    /// Any .type(...) route: the session must read the type.
    public var usesTypeKey: Bool { !typeBounds.isEmpty }

    /// Destination for an incoming text message that is valid JSON (reads the type key,
    /// a string value, with JSONScanner.valueRange; non-string or missing -> fallback).
    ///
    /// Runs per message: the type token is compared in place when it has no
    /// backslash, and unescaped into a reused buffer when it has.
    public func destination(forJSON payload: UnsafeRawBufferPointer) -> Destination {
        guard !typeBounds.isEmpty,
              let range = JSONScanner.valueRange(atPath: typePath, in: payload),
              range.count > 2, payload[range.lowerBound] == 0x22   // '"', and not ""
        else { return fallback }
        let body = UnsafeRawBufferPointer(rebasing: payload[(range.lowerBound &+ 1) ..< (range.upperBound &- 1)])
        if Bytes.firstIndex(of: 0x5C, in: body.baseAddress!, count: body.count) == nil {    // no '\\'
            return destination(forType: body)
        }
        scratch.removeAll(keepingCapacity: true)
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: payload[range]), into: &scratch)
        return scratch.withUnsafeBytes { destination(forType: $0) }
    }

    /// The destination for a type value given as unescaped UTF-8.
    public func destination(forType type: UnsafeRawBufferPointer) -> Destination {
        let found: Int? = typeBytes.withUnsafeBytes { all in
            for i in 0 ..< typeBounds.count {
                let bounds = typeBounds[i]
                // Values are never empty, so both base addresses exist here.
                if bounds.count == type.count
                    && Bytes.equal(all.baseAddress! + bounds.lowerBound, type.baseAddress!, count: bounds.count) {
                    return i
                }
            }
            return nil
        }
        return found.map { typeTargets[$0] } ?? fallback
    }

    /// Any destination backed up (the session stops reading the socket)?
    public var isBackedUp: Bool {
        for destination in destinations where destination.isBackedUp { return true }
        return false
    }

    /// Nothing left to write anywhere.
    public var isEmpty: Bool {
        for destination in destinations where !destination.isEmpty { return false }
        return true
    }

    public func flushAll() {
        for destination in destinations { destination.flush() }
    }

    /// Bytes not yet written, over every destination.
    var unwrittenBytes: Int {
        destinations.reduce(0) { $0 + $1.unwrittenBytes }
    }

    /// Some destination is a `|COMMAND`.
    var hasCommands: Bool { destinations.contains { $0.commandPID != nil } }

    /// The final drain: `body` runs each time a flush leaves every destination empty.
    func whenEmptied(_ body: @escaping () -> Void) {
        for destination in destinations {
            destination.onEmptied = { [unowned self] in if self.isEmpty { body() } }
        }
    }

    /// Closes files and command pipes without waiting for anything; what is
    /// still unwritten must have been written or abandoned first. The
    /// stdout or stderr a command's output is still copied to stays open
    /// for the rest of it (written out by `finish`).
    func close() {
        let fed = relays.filter { !$0.finished }.map { ObjectIdentifier($0.destination) }
        for destination in destinations where !fed.contains(ObjectIdentifier(destination)) {
            destination.finish(waitForCommand: false)
        }
    }

    /// The `|COMMAND` routes whose child has not exited yet (reaped meanwhile:
    /// the copies of a reaped child's output take what it left in its pipes).
    var runningCommands: [Destination] {
        let running = destinations.filter { $0.commandRunning }
        for relay in relays where !relay.finished && relay.process.waitStatus != nil { relay.finishAfterExit() }
        return running
    }

    /// At exit: flush what remains (blocking until written or failed), close the command
    /// pipes and files, and wait (waitpid) for every command to exit, so its output is
    /// complete; what commands write meanwhile is copied out. Without
    /// `waitingForCommands` (the loop already waited as long as it would:
    /// `OutputDrain`) only what is pending is written.
    ///
    /// Every pipe is closed before any child is waited for, so commands that
    /// feed each other (through files or fds) all see EOF.
    public func finish(waitingForCommands: Bool = true) {
        for destination in destinations { destination.finish(waitForCommand: false) }
        guard waitingForCommands else {
            for relay in relays { relay.destination.writePendingBlocking() }
            return
        }
        ChildOutput.pumpBlocking(relays)
        for destination in destinations { destination.reap() }
    }

    private func destinationFailed(_ destination: Destination, _ reason: String) {
        hadFailure = true
        onFailure(destination, reason)
    }

    private func destinationDrained() {
        for relay in relays { relay.resume() }
        if !isBackedUp { onDrained?() }
    }

    /// Two routes for the same VALUE would make "exactly one place" ambiguous.
    private static func checkDuplicates(_ routes: [RouteSpec]) throws(RouteSpecError) {
        for (i, route) in routes.enumerated() where routes[..<i].contains(where: { $0.match == route.match }) {
            throw RouteSpecError("more than one route for '\(route.match)'")
        }
    }
}
