import WSCore
import XCTest
@testable import WSBridge

/// Who may become a client of the server: path, --allow-origin, --max-clients, shutting down.
final class ClientAdmissionTests: XCTestCase {
    private func request(path: String = "/", origin: String? = nil) -> UpgradeRequest {
        var headers: [(name: String, value: String)] = [(name: "Host", value: "x")]
        if let origin { headers.append((name: "Origin", value: origin)) }
        return UpgradeRequest(method: "GET", target: path, path: path, headers: headers, key: "k", protocols: [])
    }

    private func status(_ admission: ClientAdmission, _ request: UpgradeRequest, open: Int = 0,
                        accepting: Bool = true) -> Int? {
        admission.refusal(for: request, openClients: open, accepting: accepting)?.status
    }

    func testWithoutLimitsEveryRequestIsAdmitted() {
        let any = ClientAdmission()
        XCTAssertNil(status(any, request(path: "/anything", origin: "https://x.example"), open: 10_000))
    }

    func testWrongPathIs404BeforeAnythingElse() {
        let admission = ClientAdmission(path: "/ws", allowedOrigins: ["https://a.example"], maxClients: 1)
        XCTAssertEqual(status(admission, request(path: "/other", origin: "https://b.example"), open: 5, accepting: false), 404)
        XCTAssertNil(status(admission, request(path: "/ws")))
    }

    func testOriginNotAllowedIs403() {
        let admission = ClientAdmission(allowedOrigins: ["https://a.example", "http://localhost:8080/"])
        XCTAssertEqual(status(admission, request(origin: "https://b.example")), 403)
        XCTAssertEqual(status(admission, request(origin: "https://a.example:443")), 403)
        XCTAssertEqual(status(admission, request(origin: "null")), 403)
        XCTAssertNil(status(admission, request(origin: "HTTPS://A.example")))
        XCTAssertNil(status(admission, request(origin: "http://localhost:8080")), "trailing slash of the flag ignored")
        XCTAssertNil(status(admission, request()), "no Origin: not a browser page")
    }

    func testMaxClientsCountsOpenClients() {
        let admission = ClientAdmission(maxClients: 2)
        XCTAssertNil(status(admission, request(), open: 1))
        XCTAssertEqual(status(admission, request(), open: 2), 503)
        XCTAssertEqual(status(admission, request(), open: 0, accepting: false), 503)
    }
}
