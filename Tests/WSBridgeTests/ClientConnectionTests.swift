import XCTest
import WSCore
import WSTransport
@testable import WSBridge
@testable import WSConnect
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

    // MARK: how a connection ended (close from either side, drop, refusal)

    private func ending(_ reason: WebSocketChannel.EndReason, _ disconnect: Disconnect?, handshake: Bool = false,
                        clientClosing: Bool = false, closeSent: CloseCode? = nil) -> ClientConnection.Ending {
        ClientConnection.ending(reason, disconnect: disconnect, closingHandshakeDone: handshake,
                                clientClosing: clientClosing, closeSent: closeSent)
    }

    func testTheServerClosesFirst() {
        let end = ending(.closed, .closedByServer(code: .normal, reason: "bye"), handshake: true)
        XCTAssertEqual(end.cause, .closedByServer(code: .normal, reason: "bye"))
        XCTAssertFalse(end.byClient)
        XCTAssertTrue(end.closeReceived)
        XCTAssertTrue(end.reachedPeer)
        XCTAssertFalse(end.confirmed, "the server's own Close confirms nothing wspipe sent after")
        XCTAssertNil(end.refusal)
    }

    func testWspipeClosesFirstAndTheServerAnswers() {
        let end = ending(.closed, .closedByServer(code: .normal, reason: ""), handshake: true, clientClosing: true,
                         closeSent: .normal)
        XCTAssertEqual(end.cause, .closedByClient(code: .normal, reason: ""))
        XCTAssertTrue(end.byClient)
        XCTAssertTrue(end.confirmed, "its answer says it read every frame before")
        XCTAssertTrue(end.reachedPeer)
    }

    func testAnErrorCloseThatCrossesWspipesConfirmsNothing() {
        let end = ending(.closed, .closedByServer(code: .internalError, reason: "boom"), handshake: true,
                         clientClosing: true, closeSent: .normal)
        XCTAssertTrue(end.byClient)
        XCTAssertFalse(end.confirmed)
        let echoed = ending(.closed, .closedByServer(code: CloseCode(rawValue: 4000), reason: ""), handshake: true,
                            clientClosing: true, closeSent: CloseCode(rawValue: 4000))
        XCTAssertTrue(echoed.confirmed, "the echo of wspipe's own code answers it")
    }

    func testADropWithoutAClose() {
        let end = ending(.lost("Connection reset by peer"), nil)
        XCTAssertEqual(end.cause, .dropped("Connection reset by peer"))
        XCTAssertFalse(end.byClient)
        XCTAssertFalse(end.closeReceived)
        XCTAssertFalse(end.reachedPeer)
        let quiet = ending(.closed, nil)
        XCTAssertEqual(quiet.cause, .dropped("connection closed"))
        let closing = ending(.closed, nil, clientClosing: true)
        XCTAssertEqual(closing.cause, .closedByClient(code: nil))
    }

    func testASilentPeerIsDroppedByWspipe() {
        for silence in [Disconnect.pingTimeout, .heartbeatTimeout] {
            let end = ending(.lost("terminated"), silence)
            XCTAssertEqual(end.cause, silence)
            XCTAssertTrue(end.byClient)
            XCTAssertFalse(end.reachedPeer)
        }
    }

    func testARefusalNamesItsCode() {
        for code in [CloseCode.messageTooBig, .unsupportedData] {
            let end = ending(.closed, .closedByServer(code: code, reason: ""), handshake: true)
            XCTAssertEqual(end.refusal, code)
        }
        XCTAssertNil(ending(.closed, .closedByServer(code: .policyViolation, reason: ""), handshake: true).refusal)
    }
}
