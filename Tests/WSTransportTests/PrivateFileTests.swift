import XCTest
@testable import WSTransport

/// The files that hold what is the user's alone (cookie jar, history,
/// --record, saved messages): never written through a planted link, never
/// left readable by others, never a file another user owns.
final class PrivateFileTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        var template = Array("/tmp/wspipe-private-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    override func tearDown() {
        _ = system("rm -rf '\(directory)'")
    }

    func testAReplacedFileIs0600WhateverTheUmask() {
        let old = umask(0)
        defer { umask(old) }
        let path = directory + "/jar"
        XCTAssertNil(PrivateFile.replace(path, with: Array("one".utf8)))
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(contents(path), "one")
        XCTAssertEqual(chmod(path, 0o666), 0)
        XCTAssertNil(PrivateFile.replace(path, with: Array("two".utf8)))
        XCTAssertEqual(mode(path), 0o600, "the new content is in a new file of its own")
        XCTAssertEqual(contents(path), "two")
        XCTAssertEqual(names(), ["jar"], "no temporary file is left behind")
    }

    /// The temporary file's name was `PATH.wspipe-PID`: a link planted there
    /// made the write go to the file it pointed to.
    func testALinkPlantedAtTheOldTemporaryNameIsNotFollowed() {
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious".utf8)))
        let path = directory + "/jar"
        XCTAssertEqual(symlink(victim, path + ".wspipe-\(getpid())"), 0)
        XCTAssertNil(PrivateFile.replace(path, with: Array("cookies".utf8)))
        XCTAssertEqual(contents(victim), "precious")
        XCTAssertEqual(contents(path), "cookies")
    }

    func testTemporaryNamesAreRandomAndNeverReused() {
        var seen = Set<String>()
        for _ in 0..<20 {
            guard case .success(let (name, fd)) = PrivateFile.createTemporary(nextTo: directory + "/jar") else {
                return XCTFail("no temporary file")
            }
            close(fd)
            XCTAssertTrue(name.hasPrefix(directory + "/jar.wspipe-"), name)
            XCTAssertFalse(name.hasSuffix("-\(getpid())"), name)
            seen.insert(name)
        }
        XCTAssertEqual(seen.count, 20)
    }

    func testCreatingNewRefusesAnyNameThatExistsALinkIncluded() {
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious".utf8)))
        XCTAssertEqual(symlink(victim, directory + "/planted"), 0)
        guard case .failure(let error) = PrivateFile.createNew(directory + "/planted") else {
            return XCTFail("opened a planted link")
        }
        XCTAssertEqual(error.errno, EEXIST)
        XCTAssertEqual(contents(victim), "precious")
    }

    /// A jar that is a link to a file: refused, the file it points to untouched.
    func testReplacingThroughALinkToAFileIsRefused() {
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious".utf8)))
        let path = directory + "/jar"
        XCTAssertEqual(symlink(victim, path), 0)
        let error = PrivateFile.replace(path, with: Array("cookies".utf8))
        XCTAssertTrue(error?.reason.contains("symbolic link") ?? false, "\(String(describing: error))")
        XCTAssertEqual(contents(victim), "precious")
        XCTAssertEqual(symlink(directory + "/nothing", directory + "/dangling"), 0)
        XCTAssertNotNil(PrivateFile.replace(directory + "/dangling", with: [1]))
        XCTAssertFalse(FileManagerless.exists(directory + "/nothing"), "nothing is created at a link's target")
    }

    /// `--cookie-jar /dev/null` (curl's habit) writes into the device; renaming
    /// a file over it, as root, replaced /dev/null itself. A node of the test's
    /// own, equal to /dev/null, stands for it (a bug must not break the machine's).
    func testADeviceIsWrittenNotReplaced() throws {
        try XCTSkipUnless(geteuid() == 0, "needs root to make a device node")
        let null = directory + "/null"
        XCTAssertEqual(mknod(null, S_IFCHR | 0o666, dev_t(1 << 8 | 3)), 0)   // makedev(1, 3): /dev/null
        XCTAssertNil(PrivateFile.replace(null, with: Array("x".utf8)))
        var st = stat()
        XCTAssertEqual(lstat(null, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR)
        XCTAssertEqual(symlink(null, directory + "/stdout"), 0)
        XCTAssertNil(PrivateFile.replace(directory + "/stdout", with: Array("x".utf8)), "a link to a device is fine")
        XCTAssertEqual(lstat(directory + "/stdout", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK)
    }

    func testAppendingCreates0600AndNarrowsAWiderMode() {
        let old = umask(0)
        defer { umask(old) }
        let path = directory + "/record.ndjson"
        guard case .success(let fd) = PrivateFile.openForAppending(path) else { return XCTFail("not opened") }
        close(fd)
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(chmod(path, 0o644), 0)
        guard case .success(let again) = PrivateFile.openForAppending(path) else { return XCTFail("not opened") }
        XCTAssertEqual(write(again, "x", 1), 1)
        close(again)
        XCTAssertEqual(mode(path), 0o600, "an existing file keeps no wider mode")
    }

    func testAppendingThroughALinkToAFileIsRefused() {
        let victim = directory + "/victim"
        XCTAssertNil(PrivateFile.replace(victim, with: Array("precious".utf8)))
        XCTAssertEqual(symlink(victim, directory + "/record"), 0)
        guard case .failure(let error) = PrivateFile.openForAppending(directory + "/record") else {
            return XCTFail("appended through a planted link")
        }
        XCTAssertTrue(error.reason.contains("symbolic link"), error.reason)
        XCTAssertEqual(contents(victim), "precious")
        XCTAssertEqual(mode(victim), 0o600)
        XCTAssertEqual(symlink(directory + "/absent", directory + "/dangling"), 0)
        if case .success = PrivateFile.openForAppending(directory + "/dangling") { XCTFail("a dangling link was followed") }
        XCTAssertFalse(FileManagerless.exists(directory + "/absent"), "nothing is created at a link's target")
    }

    func testAppendingThroughALinkToADeviceWorks() {
        XCTAssertEqual(symlink("/dev/zero", directory + "/out"), 0)
        guard case .success(let fd) = PrivateFile.openForAppending(directory + "/out") else {
            return XCTFail("/dev/stdout-like links must work")
        }
        close(fd)
    }

    /// A file another user made first (in /tmp, mode 0666) would let them read
    /// everything appended, whatever its mode: its owner may change it back.
    func testAppendingToAnotherUsersFileIsRefused() throws {
        try XCTSkipUnless(geteuid() == 0, "needs root to give a file to another user")
        let path = directory + "/record"
        let fd = open(path, O_WRONLY | O_CREAT, 0o666)
        close(fd)
        XCTAssertEqual(chmod(path, 0o666), 0)
        XCTAssertEqual(chown(path, 65534, 65534), 0)
        guard case .failure(let error) = PrivateFile.openForAppending(path) else {
            return XCTFail("appended to another user's file")
        }
        XCTAssertTrue(error.reason.contains("another user"), error.reason)
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }

    private func contents(_ path: String) -> String? {
        (try? FD.readFile(path).get()).map { String(decoding: $0, as: UTF8.self) }
    }

    private func names() -> [String] {
        (FileSystem.list(directory) ?? []).map(\.name).sorted()
    }
}

private enum FileManagerless {
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }
}
