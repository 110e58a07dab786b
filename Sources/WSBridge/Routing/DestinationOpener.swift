import WSTransport

/// Opens each distinct destination once, remembering what it opened so a
/// failure part-way can release it all.
struct DestinationOpener {
    let loop: EventLoop
    private(set) var opened: [Destination] = []
    /// The copies of what `|COMMAND` children write to their own stdout and
    /// stderr pipes (`ChildOutput`), when they could not share wspipe's.
    private(set) var relays: [ChildOutput] = []
    /// (st_dev, st_ino) of each opened file, parallel to `fileDestinations`:
    /// "log" and "./log" are one file and must share one buffer.
    private var fileIDs: [(dev: UInt64, ino: UInt64)] = []
    private var fileDestinations: [Destination] = []

    init(loop: EventLoop) {
        self.loop = loop
    }

    mutating func destination(for spec: DestinationSpec) throws(RouteSpecError) -> Destination {
        let spec = DestinationOpener.canonical(spec)
        if let existing = opened.first(where: { $0.spec == spec }) { return existing }
        let destination: Destination
        switch spec {
        case .drop:
            destination = Destination(droppingAs: spec.description)
        case .stdout, .stderr, .fd:
            destination = try inherited(spec)
        case .file(let path):
            destination = try file(path)
            if fileDestinations.contains(where: { $0 === destination }) { return destination }
            fileDestinations.append(destination)
        case .command(let command):
            let process: Subprocess
            do { process = try Subprocess.spawn(command) } catch { throw RouteSpecError(error.message) }
            destination = Destination(name: spec.description, spec: spec, target: .command(process), loop: loop)
            opened.append(destination)
            try relayOutput(of: process)
            return destination
        }
        opened.append(destination)
        return destination
    }

    /// The command's stdout and stderr, when they are pipes of its own, go
    /// to wspipe's (`Subprocess`: a child never shares a non-blocking fd).
    private mutating func relayOutput(of process: Subprocess) throws(RouteSpecError) {
        if process.outputFD >= 0 {
            relays.append(ChildOutput(.output, of: process, to: try destination(for: .stdout), loop: loop))
        }
        if process.errorFD >= 0 {
            relays.append(ChildOutput(.errors, of: process, to: try destination(for: .stderr), loop: loop))
        }
    }

    private func inherited(_ spec: DestinationSpec) throws(RouteSpecError) -> Destination {
        let fd: Int32
        switch spec {
        case .stdout: fd = 1
        case .stderr: fd = 2
        case .fd(let n): fd = n
        default: preconditionFailure("not an inherited fd: \(spec)")
        }
        guard FD.isOpen(fd) else {
            throw RouteSpecError("\(spec): file descriptor \(fd) is not open")
        }
        StdioMode.prepare(fd)
        return Destination(name: spec.description, spec: spec, target: .borrowed(fd), loop: loop)
    }

    /// Appends (O_APPEND: lines from several writers never overwrite each
    /// other), creates with 0644 (less the umask). A FIFO or a socket is
    /// made non-blocking like a pipe.
    private mutating func file(_ path: String) throws(RouteSpecError) -> Destination {
        let fd: Int32
        switch FD.open(path, .append(creatingWithMode: 0o644)) {
        case .success(let opened): fd = opened
        case .failure(let error): throw RouteSpecError("cannot open '\(path)': \(error.reason)")
        }
        if let status = FD.status(fd) {
            let id = (dev: status.device, ino: status.inode)
            if let i = fileIDs.firstIndex(where: { $0 == id }) {
                FD.close(fd)
                return fileDestinations[i]
            }
            fileIDs.append(id)
            if status.kind == .fifo || status.kind == .socket { FD.setNonBlocking(fd) }
        } else {
            fileIDs.append((dev: UInt64.max, ino: UInt64.max))
        }
        return Destination(name: path, spec: .file(path), target: .owned(fd), loop: loop)
    }

    /// Closes files and command pipes opened so far and waits for the
    /// commands (copying what they still write).
    func releaseAll() {
        for destination in opened { destination.finish(waitForCommand: false) }
        ChildOutput.pumpBlocking(relays)
        for destination in opened { destination.reap() }
    }

    /// fd:1 is stdout and fd:2 is stderr: one buffer per fd, or lines from two
    /// routes could interleave mid-line.
    static func canonical(_ spec: DestinationSpec) -> DestinationSpec {
        switch spec {
        case .fd(1): return .stdout
        case .fd(2): return .stderr
        default: return spec
        }
    }
}
