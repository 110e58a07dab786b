import WSCore
import XCTest
@testable import WSBridge

/// How an --exec client and its program end: fed events, checked actions.
final class ExecLifecycleTests: XCTestCase {
    private func lifecycle() -> ExecLifecycle {
        ExecLifecycle(closeTimeoutNanos: 2_000, graceNanos: 500)
    }

    func testProgramExitWithItsOutputOverClosesTheClient1000() {
        var l = lifecycle()
        XCTAssertEqual(l.handle(.outputEnded), [], "stdout closed, program still running: nothing yet")
        XCTAssertEqual(l.handle(.programExited(success: true, outputOver: true)), [.closeClient(.normal)])
        XCTAssertEqual(l.phase, .closingClient)
        XCTAssertEqual(l.timerNanos, 2_000)
        XCTAssertFalse(l.programRunning)
        XCTAssertEqual(l.handle(.clientLeft), [.release])
        XCTAssertEqual(l.phase, .ended)
    }

    func testFailedProgramIs1011AfterItsRemainingOutput() {
        var l = lifecycle()
        XCTAssertEqual(l.handle(.programExited(success: false, outputOver: false)), [])
        XCTAssertEqual(l.phase, .draining(.internalError))
        XCTAssertNil(l.timerNanos, "output still flowing to the client has no deadline")
        XCTAssertEqual(l.handle(.outputEnded), [.closeClient(.internalError)])
    }

    func testClientThatDoesNotAnswerTheCloseIsDropped() {
        var l = lifecycle()
        _ = l.handle(.programExited(success: true, outputOver: true))
        XCTAssertEqual(l.handle(.timerFired), [.dropClient])
        XCTAssertEqual(l.handle(.clientLeft), [.release])
    }

    func testClientLeavingClosesStdinThenTermThenKill() {
        var l = lifecycle()
        XCTAssertEqual(l.handle(.clientLeft), [.closeProgramInput, .discardOutput])
        XCTAssertEqual(l.phase, .stoppingProgram)
        XCTAssertEqual(l.timerNanos, 500)
        XCTAssertEqual(l.handle(.timerFired), [.terminateProgram])
        XCTAssertEqual(l.timerNanos, 500)
        XCTAssertEqual(l.handle(.timerFired), [.killProgram])
        XCTAssertNil(l.timerNanos)
        XCTAssertTrue(l.programRunning)
        XCTAssertEqual(l.handle(.timerFired), [])
        XCTAssertEqual(l.handle(.programExited(success: false, outputOver: true)), [.release])
        XCTAssertEqual(l.phase, .ended)
    }

    func testProgramExitingInTheGracePeriodEndsThePair() {
        var l = lifecycle()
        _ = l.handle(.clientLeft)
        XCTAssertEqual(l.handle(.programExited(success: true, outputOver: false)), [.release])
        XCTAssertEqual(l.handle(.timerFired), [], "no signal after the end")
    }

    func testClientLeavingWhileTheOutputDrainsEndsThePair() {
        var l = lifecycle()
        _ = l.handle(.programExited(success: true, outputOver: false))
        XCTAssertEqual(l.handle(.clientLeft), [.release])
        XCTAssertEqual(l.handle(.outputEnded), [])
    }
}

/// The CGI-style variables an --exec program gets.
final class CGIEnvironmentTests: XCTestCase {
    func testVariables() {
        let request = UpgradeRequest(method: "GET", target: "/chat/7?user=ann&x", path: "/chat/7",
                                     headers: [(name: "Host", value: "h:1"), (name: "X-Token", value: "abc"),
                                               (name: "Accept-Encoding", value: "gzip"),
                                               (name: "accept-encoding", value: "br"),
                                               (name: "Proxy", value: "http://evil"),
                                               (name: "Weird.Name!", value: "v")],
                                     key: "k", protocols: [])
        let vars = CGIEnvironment.variables(for: request, id: 4, peer: "[::1]:5555", serverPort: 8080, tls: true)
        for expected in ["REMOTE_ADDR=::1", "REMOTE_PORT=5555", "PATH_INFO=/chat/7", "QUERY_STRING=user=ann&x",
                         "REQUEST_URI=/chat/7?user=ann&x", "REQUEST_METHOD=GET", "SERVER_PORT=8080", "HTTPS=on",
                         "WSPIPE_CLIENT_ID=4", "HTTP_HOST=h:1", "HTTP_X_TOKEN=abc",
                         "HTTP_ACCEPT_ENCODING=gzip, br"] {
            XCTAssertTrue(vars.contains(expected), "\(expected) missing from \(vars)")
        }
        XCTAssertFalse(vars.contains { $0.hasPrefix("HTTP_PROXY=") }, "httpoxy")
        XCTAssertFalse(vars.contains { $0.hasPrefix("HTTP_WEIRD") }, "a name with '.' or '!' is left out")
        XCTAssertEqual(vars.filter { $0.hasPrefix("HTTP_ACCEPT_ENCODING=") }.count, 1)
        XCTAssertEqual(CGIEnvironment.droppedHeaderNames(request.headers), ["Weird.Name!"])
    }

    /// A client's X_Forwarded_For (or X.Forwarded.For) would become
    /// HTTP_X_FORWARDED_FOR, merged ahead of the reverse proxy's X-Forwarded-For.
    func testNamesThatWouldCollideAreLeftOut() {
        let request = UpgradeRequest(method: "GET", target: "/", path: "/",
                                     headers: [(name: "X_Forwarded_For", value: "6.6.6.6"),
                                               (name: "X.Forwarded.For", value: "6.6.6.7"),
                                               (name: "X-Forwarded-For", value: "203.0.113.9")],
                                     key: "k", protocols: [])
        let vars = CGIEnvironment.variables(for: request, id: 1, peer: "127.0.0.1:9", serverPort: 1, tls: false)
        XCTAssertEqual(vars.filter { $0.hasPrefix("HTTP_X_FORWARDED_FOR=") }, ["HTTP_X_FORWARDED_FOR=203.0.113.9"])
        XCTAssertEqual(CGIEnvironment.droppedHeaderNames(request.headers), ["X_Forwarded_For", "X.Forwarded.For"])
    }

    func testNoQueryAndPlainTCP() {
        let request = UpgradeRequest(method: "GET", target: "/", path: "/", headers: [], key: "k", protocols: [])
        let vars = CGIEnvironment.variables(for: request, id: 1, peer: "127.0.0.1:9", serverPort: 1, tls: false)
        XCTAssertTrue(vars.contains("QUERY_STRING="))
        XCTAssertTrue(vars.contains("REMOTE_ADDR=127.0.0.1"))
        XCTAssertFalse(vars.contains { $0.hasPrefix("HTTPS=") })
    }
}
