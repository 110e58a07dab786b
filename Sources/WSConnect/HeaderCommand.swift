import WSCore
import WSTransport

/// `--header-command CMD` (wspipe(1): OPTIONS, Connection): `sh -c CMD`,
/// run before every connection attempt, prints headers for the handshake,
/// one `Name: value` a line (blank lines and # comments skipped, as in
/// --header-file), so that each attempt can carry a fresh token.
///
/// It runs on the loop without blocking it: its stdout is read as it comes,
/// and its exit is polled for meanwhile (from a millisecond apart to 50 ms).
/// The output ends at its exit, not at EOF: a process it left in the
/// background holding its stdout does not hold up the attempt (and is
/// killed with the rest of its process group, `Subprocess`). Its stdin is
/// /dev/null (wspipe's stdin belongs to the session), its stderr wspipe's
/// (`errors` gets what it writes there when wspipe's is a pipe). The
/// caller's deadline (--connect-timeout) cancels it, which kills and reaps it.
final class HeaderCommand {
    /// More output than any set of headers needs.
    static let maxOutput = 64 << 10

    private let command: String
    private let loop: EventLoop
    private let errors: (Subprocess) -> ChildErrorCopy?
    private var process: Subprocess?
    private var errorCopy: ChildErrorCopy?
    private var output: [UInt8] = []
    private var watching = false
    private var pollTimer: EventLoop.TimerID?
    private var pollDelayNanos: Int64 = 1_000_000
    private var completion: ((Result<[(name: String, value: String)], Failure>) -> Void)?

    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var description: String { "--header-command: \(reason)" }
    }

    /// `errors`: starts copying what the command writes to stderr when it
    /// cannot share wspipe's (nil: dropped).
    init(command: String, loop: EventLoop, errors: @escaping (Subprocess) -> ChildErrorCopy? = { _ in nil }) {
        self.command = command
        self.loop = loop
        self.errors = errors
    }

    func start(_ completion: @escaping (Result<[(name: String, value: String)], Failure>) -> Void) {
        self.completion = completion
        do {
            let process = try Subprocess.spawn(command, .init(input: .null, output: .pipe))
            self.process = process
            if process.errorFD >= 0 {
                if let copy = errors(process) {
                    errorCopy = copy
                } else {
                    process.closeErrors()
                }
            }
            watching = true
            loop.watch(process.outputFD, .read) { [unowned self] _ in self.readOutput() }
            awaitExit()
        } catch {
            finish(.failure(Failure(reason: error.message)))
        }
    }

    /// Gives up (the attempt was cancelled or timed out): the command is
    /// killed and reaped; completion is not called.
    func cancel() {
        completion = nil
        stopReading()
        if let pollTimer { loop.cancel(pollTimer) }
        pollTimer = nil
        guard let process else { return }
        process.send(.kill)
        process.wait()
        errorCopy?.finishAfterExit()
        errorCopy = nil
        self.process = nil
    }

    private func readOutput() {
        guard let process, watching else { return }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            switch chunk.withUnsafeMutableBytes({ FD.read(process.outputFD, into: $0) }) {
            case .bytes(let n):
                output += chunk[..<n]
                if output.count > Self.maxOutput { return fail("more than \(Self.maxOutput) bytes of output") }
            case .wouldBlock:
                return
            case .eof, .error:
                return stopReading()
            }
        }
    }

    /// Looks for the exit without blocking, more and more patiently; at the
    /// exit, what the pipe holds is the rest of the output.
    private func awaitExit() {
        guard let process else { return }
        guard process.reapIfExited() else {
            pollTimer = loop.schedule(afterNanos: pollDelayNanos) { [weak self] in
                self?.pollTimer = nil
                self?.awaitExit()
            }
            pollDelayNanos = min(pollDelayNanos * 2, 50_000_000)
            return
        }
        readOutput()
        guard completion != nil else { return }   // too much output: failed
        stopReading()
        errorCopy?.finishAfterExit()
        errorCopy = nil
        self.process = nil
        guard process.exitCode == 0 else {
            return finish(.failure(Failure(reason: "'\(command)' \(process.exitDescription)")))
        }
        switch Self.parse(output) {
        case .success(let headers): finish(.success(headers))
        case .failure(let failure): finish(.failure(failure))
        }
    }

    private func fail(_ reason: String) {
        let done = completion
        cancel()
        done?(.failure(Failure(reason: reason)))
    }

    private func finish(_ result: Result<[(name: String, value: String)], Failure>) {
        let done = completion
        completion = nil
        done?(result)
    }

    private func stopReading() {
        guard watching, let process else { return }
        watching = false
        loop.unwatch(process.outputFD)
        process.closeOutput()
    }

    /// `Name: value` lines (LF or CRLF); blank lines and # comments skipped.
    /// The name must be an HTTP token (RFC 9110 §5.6.2); the value is what
    /// follows the colon, leading blanks trimmed, and may not hold a control
    /// character (it would let the command inject headers or break the request).
    static func parse(_ bytes: [UInt8]) -> Result<[(name: String, value: String)], Failure> {
        var headers: [(name: String, value: String)] = []
        var number = 0
        for rawLine in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine[...]
            if line.last == 13 { line = line.dropLast() }
            if line.allSatisfy({ $0 == 32 || $0 == 9 }) || line.first == UInt8(ascii: "#") { continue }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex,
                  line[..<colon].allSatisfy(HTTPToken.isCharacter) else {
                return .failure(Failure(reason: "line \(number): expected 'Name: value'"))
            }
            let value = line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
            guard !value.contains(where: { $0 < 32 && $0 != 9 || $0 == 127 }) else {
                return .failure(Failure(reason: "line \(number): control character in the value"))
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            if let reserved = ClientHandshake.reservedHeader(name) {
                return .failure(Failure(reason: "line \(number): \(reserved) belongs to the WebSocket handshake; wspipe sets it and it cannot be given"))
            }
            headers.append((name: name, value: String(decoding: value, as: UTF8.self)))
        }
        return .success(headers)
    }

}

/// What copies a child's stderr for it when it cannot share wspipe's (the
/// bridge's `ChildOutput`, to a `Destination`): told when the child is gone.
package protocol ChildErrorCopy: AnyObject {
    func finishAfterExit()
}
