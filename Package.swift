// swift-tools-version: 6.0
// wspipe: stdin/stdout <-> WebSocket bridge for JSON protocols.
// No package dependencies: C libraries come from the system through
// systemLibrary targets (OpenSSL for TLS and SHA-1, zlib for deflate).
import PackageDescription

// Release builds skip the run-time exclusivity checks: the event loop is
// single-threaded and the checks cost a call per message on the hot path.
// Debug builds (and so the unit tests) keep them.
let releaseSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "wspipe",
    products: [
        .executable(name: "wspipe", targets: ["wspipe"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Layer 1: the sans-I/O protocol core (frames, handshake, UTF-8, close codes, permessage-deflate).
        .target(name: "WSCore", dependencies: ["COpenSSL", "CZlib"], swiftSettings: releaseSettings),
        // Layer 2: sockets, TLS and the poll() event loop.
        // (WSCore for the sans-I/O proxy handshakes its dialer drives.)
        .target(name: "WSTransport", dependencies: ["COpenSSL", "WSCore"], swiftSettings: releaseSettings),
        // Layer 3: JSON lines, base64 framing, client and server sessions.
        .target(name: "WSBridge", dependencies: ["WSCore", "WSTransport"], swiftSettings: releaseSettings),
        // Layer 4: the flag table, option parsing, help and the program's entry.
        .target(name: "WSCLI", dependencies: ["WSCore", "WSTransport", "WSBridge"], swiftSettings: releaseSettings),
        .executableTarget(
            name: "wspipe", dependencies: ["WSCLI"],
            // A static Swift runtime halves start-up time and RSS (see README).
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]),
        .testTarget(name: "WSCoreTests", dependencies: ["WSCore"]),
        .testTarget(name: "WSTransportTests", dependencies: ["WSTransport"]),
        .testTarget(name: "WSBridgeTests", dependencies: ["WSBridge"]),
        .testTarget(name: "WSCLITests", dependencies: ["WSCLI"]),
    ]
)
