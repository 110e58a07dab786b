#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One getaddrinfo(3) off the loop: a helper thread resolves, then closes
/// the write end of a pipe whose read end the loop watches, so stdin, routes,
/// signals and the connect timeout go on while a name server is slow.
///
/// getaddrinfo cannot be interrupted, so `cancel()` only stops listening:
/// the loop's end of the pipe is closed at once, and the thread, which owns
/// the write end and its share of the result, closes and frees them when
/// its lookup returns, however much later. Numeric literals need no lookup
/// and complete without a thread.
public final class NameLookup {
    private let host: String
    private let port: UInt16
    private let family: AddressFamily
    private let loop: EventLoop
    private var readFD: Int32 = -1
    private var job: LookupJob?
    private var kickoff: EventLoop.TimerID?
    private var completion: ((Result<[SocketAddress], TransportError>) -> Void)?

    public init(host: String, port: UInt16, family: AddressFamily = .any, loop: EventLoop) {
        self.host = host
        self.port = port
        self.family = family
        self.loop = loop
    }

    deinit { cancel() }

    /// Calls `completion` once, on the loop and never from inside start(),
    /// with the addresses in getaddrinfo's order or the error
    /// ("resolve no.such.host: Name or service not known").
    public func start(_ completion: @escaping (Result<[SocketAddress], TransportError>) -> Void) {
        precondition(self.completion == nil, "NameLookup.start called twice")
        self.completion = completion
        if Resolver.isIPLiteral(host) {
            let (host, port, family) = (self.host, self.port, self.family)
            kickoff = loop.schedule(afterNanos: 0) { [weak self] in
                self?.kickoff = nil
                self?.finish(Result { try Resolver.resolve(host: host, port: port, family: family) }.mapError(Self.transportError))
            }
            return
        }
        do {
            try startThread()
        } catch {
            kickoff = loop.schedule(afterNanos: 0) { [weak self] in
                self?.kickoff = nil
                self?.finish(.failure(error))
            }
        }
    }

    /// Stops listening; completion is not called afterwards. The thread, if
    /// still resolving, cleans up after itself.
    public func cancel() {
        completion = nil
        if let k = kickoff { loop.cancel(k); kickoff = nil }
        stopWatching()
        job = nil
    }

    private func startThread() throws(TransportError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TransportError.posix("resolve \(host): pipe") }
        guard makeNonBlockingCloexec(ends[0]), makeNonBlockingCloexec(ends[1]) else {
            let e = TransportError.posix("resolve \(host): fcntl")
            sysClose(ends[0]); sysClose(ends[1])
            throw e
        }
        let job = LookupJob(host: host, port: port, family: family, doneFD: ends[1])
        readFD = ends[0]
        self.job = job
        loop.watch(readFD, .read) { [weak self] _ in self?.threadDone() }
        if HelperThread.start({ job.run() }) != nil {
            // No thread to be had: resolve here, blocking the loop once, as
            // wspipe always did; the pipe still reports the result on the loop.
            job.run()
        }
    }

    /// The thread closed its end: its result is complete.
    private func threadDone() {
        let outcome = job?.outcome ?? .failure(TransportError("resolve \(host): lookup ended without a result"))
        stopWatching()
        job = nil
        finish(outcome)
    }

    private func stopWatching() {
        guard readFD >= 0 else { return }
        loop.unwatch(readFD)
        sysClose(readFD)
        readFD = -1
    }

    private func finish(_ result: Result<[SocketAddress], TransportError>) {
        guard let c = completion else { return }
        completion = nil
        c(result)
    }

    fileprivate static func transportError(_ error: any Error) -> TransportError {
        error as? TransportError ?? TransportError("\(error)")
    }
}

/// What the helper thread and the loop share: the question, and the answer
/// the thread leaves before it closes `doneFD` (the pipe's close orders the
/// write before the loop's read; the lock says so to the compiler and TSan).
private final class LookupJob: @unchecked Sendable {
    let host: String
    let port: UInt16
    let family: AddressFamily
    private let doneFD: Int32
    private let lock = PThreadMutex()
    private var result: Result<[SocketAddress], TransportError>?

    init(host: String, port: UInt16, family: AddressFamily, doneFD: Int32) {
        self.host = host
        self.port = port
        self.family = family
        self.doneFD = doneFD
    }

    var outcome: Result<[SocketAddress], TransportError>? {
        lock.locked { result }
    }

    /// Resolves, stores the answer, then closes the write end: the loop sees
    /// EOF. After a cancel the read end is gone already and nobody looks.
    func run() {
        let answer = Result { try Resolver.resolve(host: host, port: port, family: family) }.mapError(NameLookup.transportError)
        lock.locked { result = answer }
        sysClose(doneFD)
    }
}

/// A plain pthread mutex (no Foundation; Synchronization's Mutex needs macOS 15).
private final class PThreadMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// Detached threads for blocking calls that have no non-blocking form.
enum HelperThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread with every signal blocked, so
    /// SIGINT and SIGTERM keep going to the main thread (SignalWatcher would
    /// forward them from any thread, but the main thread's poll should wake).
    /// Returns the error when no thread could be started.
    static func start(_ body: @escaping () -> Void) -> TransportError? {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if os(Linux)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let rc = pthread_create(&thread, &attributes, { raw in
            #if os(Linux)
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            #else
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return .posix("pthread_create", errno: rc)
        }
        return nil
    }
}
