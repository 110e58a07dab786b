import WSTransport
import WSConnect

// What the bridge lends the connector (WSConnect), which cannot name the
// bridge's types: the copy of --header-command's stderr to wspipe's.

extension ChildOutput: ChildErrorCopy {
    /// A copy of `process`'s stderr to `destination`; nil (dropped) without one.
    static func errorCopy(of process: Subprocess, to destination: Destination?, loop: EventLoop) -> ChildErrorCopy? {
        destination.map { ChildOutput(.errors, of: process, to: $0, loop: loop) }
    }
}
