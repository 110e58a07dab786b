// swift-tools-version: 6.0
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The wspipe authors (LICENSE).
// wspipe: stdin/stdout <-> WebSocket bridge for JSON protocols.
// No package dependencies: C libraries come from the system through
// systemLibrary targets (OpenSSL for TLS and SHA-1, zlib for deflate).
// The version is not here (a manifest has none: a package's version is its
// git tag, vVERSION): it is written once, in Sources/WSCLI/Flags/Version.swift,
// and packaging/release.sh refuses a tag that does not match it.
import PackageDescription

// Release builds skip the run-time exclusivity checks: the event loop is
// single-threaded and the checks cost a call per message on the hot path.
// Debug builds (and so the unit tests) keep them. On Linux each function gets
// its own section, so the linker can place the code a run executes together
// (below); Mach-O already splits code per symbol (subsections via symbols).
let releaseSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(platforms: [.linux], configuration: .release)),
]

// How the program is linked (Sources/README.md, "The release executable").
// Linux debug: the Swift runtime static, the C libraries shared.
// Release on Linux: one static executable (Swift runtime, OpenSSL, zlib,
// libstdc++ and glibc), so start-up maps no shared library and binds no
// symbol; lld places the functions a run executes next to each other
// (Sources/wspipe/symbol-order.txt, made by Tests/bench/symbol-order.sh), so
// the few hundred KiB of code in use are not spread over 8 MiB of text,
// which is what the resident size of the executable's pages measures.
// Host names: glibc's files and dns sources (/etc/hosts, DNS) are inside
// the executable; only another source named on nsswitch.conf's hosts line
// is loaded from the system, and skipped when it is missing (Sources/README.md,
// "The release executable"; Tests/integration/test_resolver.py).
// Elsewhere the toolchain's defaults: Apple's links the Swift runtime of
// the system and has no static stdlib to offer (Sources/README.md, "Porting").
let symbolOrder = Context.packageDirectory + "/Sources/wspipe/symbol-order.txt"
let executableLinkSettings: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .debug)),
    .unsafeFlags(["-static-executable", "-use-ld=lld",
                  "-Xlinker", "--symbol-ordering-file=" + symbolOrder, "-Xlinker", "--no-warn-symbol-ordering"],
                 .when(platforms: [.linux], configuration: .release)),
]

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
        // Layer 3: JSON without a tree (validate, compact, key paths, string codec, pretty printer).
        .target(name: "WSJSON", swiftSettings: releaseSettings),
        // Layer 3: MessagePack and CBOR to JSON and back (--codec), without a tree.
        .target(name: "WSCodecs", swiftSettings: releaseSettings),
        // Layer 3: the terminal's text (line editor, key decoder, display width, escaping peer text).
        .target(name: "WSTerminal", swiftSettings: releaseSettings),
        // Layer 3: Socket.IO over Engine.IO v4 without I/O (packets, lines, the handshakes).
        .target(name: "WSSocketIO", dependencies: ["WSCore", "WSJSON"], swiftSettings: releaseSettings),
        // Layer 4a: the line, envelope and template vocabulary (stdin lines to messages, templates), diagnostics.
        .target(name: "WSMessages", dependencies: ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSSocketIO"],
                swiftSettings: releaseSettings),
        // Layer 4a: the interactive mode's terminal side (line editor, transcript, slash commands), without I/O.
        .target(name: "WSConsole", dependencies: ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSMessages"],
                swiftSettings: releaseSettings),
        // Layer 4a: reaching the server: the connector and its phases, URL, headers, cookies, redirects, the handshake read.
        .target(name: "WSConnect", dependencies: ["WSCore", "WSTransport", "WSTerminal", "WSMessages"],
                swiftSettings: releaseSettings),
        // Layer 4: JSON lines, base64 framing, client and server sessions.
        .target(name: "WSBridge", dependencies: ["WSCore", "WSTransport", "WSJSON", "WSCodecs", "WSTerminal", "WSSocketIO",
                                                 "WSMessages", "WSConsole", "WSConnect"],
                swiftSettings: releaseSettings),
        // Layer 5: the flag table, option parsing, help and the program's entry.
        .target(name: "WSCLI", dependencies: ["WSCore", "WSTransport", "WSTerminal", "WSCodecs", "WSSocketIO", "WSMessages", "WSConsole",
                                              "WSConnect", "WSBridge", "BuildInfo"],
                swiftSettings: releaseSettings),
        // The commit `wspipe --version` names, stamped at build time by the
        // CommitStamp plugin (a source file in the build directory, never committed).
        .target(name: "BuildInfo", plugins: ["CommitStamp"]),
        .plugin(name: "CommitStamp", capability: .buildTool(), path: "Sources/CommitStamp", exclude: ["stamp.sh"]),
        .executableTarget(
            name: "wspipe", dependencies: ["WSCLI"], exclude: ["symbol-order.txt"],
            linkerSettings: executableLinkSettings),
        .testTarget(name: "WSCoreTests", dependencies: ["WSCore"]),
        .testTarget(name: "WSTransportTests", dependencies: ["WSTransport"]),
        .testTarget(name: "WSJSONTests", dependencies: ["WSJSON"]),
        .testTarget(name: "WSCodecsTests", dependencies: ["WSCodecs", "WSJSON"]),
        .testTarget(name: "WSTerminalTests", dependencies: ["WSTerminal"]),
        .testTarget(name: "WSSocketIOTests", dependencies: ["WSSocketIO", "WSJSON"]),
        .testTarget(name: "WSMessagesTests", dependencies: ["WSMessages", "WSJSON"]),
        .testTarget(name: "WSConsoleTests", dependencies: ["WSConsole", "WSMessages", "WSTerminal", "WSTransport"]),
        .testTarget(name: "WSConnectTests", dependencies: ["WSConnect", "WSCore"]),
        .testTarget(name: "WSBridgeTests", dependencies: ["WSBridge", "WSMessages", "WSConsole", "WSConnect", "WSJSON", "WSTerminal"]),
        .testTarget(name: "WSCLITests", dependencies: ["WSCLI"]),
    ]
)
