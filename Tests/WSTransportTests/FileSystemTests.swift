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

    func testListingADirectory() {
        XCTAssertNil(FileSystem.makeDirectories(directory + "/sub", permissions: 0o700))
        XCTAssertNil(FileReplacement.write(directory + "/file.bin", [1]))
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
