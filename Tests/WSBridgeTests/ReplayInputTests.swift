import XCTest
@testable import WSBridge

/// A client's --replay input ends once the recording is played and stdin
/// (read beside it to report its lines) has ended, in either order.
final class ReplayInputTests: XCTestCase {
    func testEndsOnceBothHaveEndedInEitherOrder() {
        XCTAssertEqual(ReplayInput.recordingAndStdin.after(recordingEnded: true), .stdin)
        XCTAssertEqual(ReplayInput.recordingAndStdin.after(recordingEnded: false), .recording)
        XCTAssertEqual(ReplayInput.stdin.after(recordingEnded: false), .ended)
        XCTAssertEqual(ReplayInput.recording.after(recordingEnded: true), .ended)
    }

    func testTheSameEndTwiceChangesNothing() {
        XCTAssertEqual(ReplayInput.stdin.after(recordingEnded: true), .stdin)
        XCTAssertEqual(ReplayInput.recording.after(recordingEnded: false), .recording)
        XCTAssertEqual(ReplayInput.ended.after(recordingEnded: true), .ended)
        XCTAssertEqual(ReplayInput.ended.after(recordingEnded: false), .ended)
    }
}
