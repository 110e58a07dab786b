import XCTest
import WSCore
import WSTransport
@testable import WSBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ClientConnection`'s opening guard: a channel that ends while the session
/// is still opening the connection (sending the replay and the queue) is
/// handled once the lifecycle knows it opened, exactly once.
final class ClientConnectionTests: XCTestCase {
    private let loop = EventLoop()
    private var peer: Int32 = -1
    private var connection: ClientConnection!

    override func setUp() {
        let (mine, theirs) = makeSocketPair()
        peer = theirs
        let channel = WebSocketChannel(stream: TCPStream(fd: mine), role: .client, maxMessageSize: 1 << 20,
                                       loop: loop) { _ in }
        connection = ClientConnection(channel: channel)
    }

    override func tearDown() {
        connection.channel.terminate()
        close(peer)
    }

    func testAnEndWhileOpeningWaitsForTheOpening() {
        XCTAssertFalse(connection.channelEnded(.lost("reset")), "not handled while opening")
        guard case .lost(let text)? = connection.finishOpening() else { return XCTFail("the end waited") }
        XCTAssertEqual(text, "reset")
        XCTAssertNil(connection.finishOpening(), "handed over once")
        XCTAssertTrue(connection.channelEnded(.closed), "after the opening an end is handled at once")
    }

    func testAnOpeningWithoutAnEndLeavesTheConnectionOpen() {
        XCTAssertNil(connection.finishOpening())
        guard case .open = connection.phase else { return XCTFail("open") }
        XCTAssertTrue(connection.channelEnded(.closed))
    }

    func testEndingStopsTheKeepAlive() {
        let clock = ManualScheduler()
        var pings = 0
        let keepAlive = KeepAlive(scheduler: clock, intervalNanos: 1_000_000_000, timeoutNanos: 1_000_000_000,
                                  sendPing: { _ in pings += 1 }, onDead: {}, progress: { nil })
        connection.keepAlive = keepAlive
        keepAlive.start()
        clock.advance(by: 1_000_000_000)
        XCTAssertEqual(pings, 1)
        connection.end()
        XCTAssertNil(connection.keepAlive)
        clock.advance(by: 10_000_000_000)
        XCTAssertEqual(pings, 1, "no ping after the end")
        guard case .ended = connection.phase else { return XCTFail("ended") }
    }
}
