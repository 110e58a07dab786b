import XCTest
@testable import WSTransport

final class FileSystemTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        var template = Array("/tmp/wspipe-fs-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    override func tearDown() {
        _ = system("rm -rf '\(directory)'")
    }

    func testDirectoriesAreMadeWithTheirMode() {
        XCTAssertNil(FileSystem.makeDirectories(directory + "/a/b", permissions: 0o700))
        var st = stat()
        XCTAssertEqual(stat(directory + "/a/b", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700 & ~currentUmask())
        XCTAssertNil(FileSystem.makeDirectories(directory + "/a/b", permissions: 0o700), "existing ones are fine")
        XCTAssertNotNil(FileSystem.makeDirectories("/proc/version/x", permissions: 0o700))
    }

    /// A lock held for good (someone's `flock` by hand) must not freeze the
    /// event loop that asked for it: the wait ends, and says why.
    func testALockHeldElsewhereIsWaitedForAWhileOnly() {
        let path = directory + "/saved.ndjson"
        let holder = open(path, O_RDONLY | O_CREAT, 0o600)
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        let result = FileLock.whileLocked(path, creatingWithMode: 0o600, waitNanos: 50_000_000) { true }
        guard case .failure(let error) = result else { return XCTFail("the body ran under another's lock") }
        XCTAssertTrue(error.reason.contains("another process has held a lock on the file"), error.reason)
        close(holder)
        XCTAssertEqual(try? FileLock.whileLocked(path, creatingWithMode: 0o600, waitNanos: 50_000_000) { true }.get(), true)
    }

    func testListingADirectory() {
        XCTAssertNil(FileSystem.makeDirectories(directory + "/sub", permissions: 0o700))
        XCTAssertNil(PrivateFile.replace(directory + "/file.bin", with: [1]))
        XCTAssertEqual(symlink(directory + "/sub", directory + "/link"), 0)
        let entries = FileSystem.list(directory)?.sorted { $0.name < $1.name }
        XCTAssertEqual(entries, [.init(name: "file.bin", isDirectory: false), .init(name: "link", isDirectory: true),
                                 .init(name: "sub", isDirectory: true)])
        XCTAssertNil(FileSystem.list(directory + "/nope"))
    }

    private func currentUmask() -> mode_t {
        let old = umask(0)
        umask(old)
        return old
    }
}
