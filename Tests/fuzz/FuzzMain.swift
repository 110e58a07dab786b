/// libFuzzer entry point for the parsers that read what peers and stdin send:
/// the frame decoder and connection (both roles, with and without
/// permessage-deflate), both handshakes, the extension negotiation, the
/// JSON scanner and the --replay file reader. Built and run by
/// Tests/fuzz/run.sh; not part of the package.
///
/// The first input byte picks the target, the rest is that target's input.
/// Every target checks invariants with `check` (a failed check traps, which
/// libFuzzer reports as a crash with the input that caused it).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 9 {
    case 0: FuzzConnection.run(input, role: .client, compressed: false)
    case 1: FuzzConnection.run(input, role: .server, compressed: false)
    case 2: FuzzHandshakes.client(input)
    case 3: FuzzHandshakes.server(input)
    case 4: FuzzJSON.run(input)
    case 5: FuzzConnection.run(input, role: .client, compressed: true)
    case 6: FuzzConnection.run(input, role: .server, compressed: true)
    case 7: FuzzHandshakes.extensions(input)
    default: FuzzRecording.run(input)
    }
    return 0
}

/// A failed invariant: stop with the reason (libFuzzer keeps the input).
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant: " + what()) }
}
