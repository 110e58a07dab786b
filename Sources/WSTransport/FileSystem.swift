#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files by path, for the modules above that do not call the C library:
/// the directories of wspipe's own files, and the names in a directory for
/// the interactive mode's Tab completion. Reading and writing go through `FD`.
public enum FileSystem {
    /// mkdir -p: each missing directory of `path` is created with
    /// `permissions` (less the umask); existing ones are left as they are.
    public static func makeDirectories(_ path: String, permissions: UInt32) -> IOError? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, mode_t(permissions)) != 0 {
                let e = currentErrno()
                if e != EEXIST { return IOError(call: "mkdir", errno: e) }
            }
        }
        return nil
    }

    /// The whole of a small file: nil when there is no such file (ENOENT),
    /// the error for any other failure. Reading stops as soon as more than
    /// `limit` bytes came (the caller sees `count > limit` and refuses it).
    public static func readFile(_ path: String, limit: Int) -> Result<[UInt8]?, IOError> {
        let fd: Int32
        switch FD.open(path, O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let error): return error.errno == ENOENT ? .success(nil) : .failure(error)
        }
        defer { FD.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            switch chunk.withUnsafeMutableBytes({ FD.read(fd, into: $0) }) {
            case .bytes(let n):
                bytes.append(contentsOf: chunk[0..<n])
                if bytes.count > limit { return .success(bytes) }
            case .wouldBlock: FD.waitUntilReady(fd, .read)
            case .eof: return .success(bytes)
            case .error(let error): return .failure(error)
            }
        }
    }

    /// One name in a directory.
    public struct DirectoryEntry: Equatable, Sendable {
        public var name: String
        public var isDirectory: Bool

        public init(name: String, isDirectory: Bool) {
            self.name = name
            self.isDirectory = isDirectory
        }
    }

    /// The names in directory `path` ("." and ".." left out), at most
    /// `limit` of them; nil when it cannot be read. A symbolic link to a
    /// directory counts as a directory.
    public static func list(_ path: String, limit: Int = 10_000) -> [DirectoryEntry]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var entries: [DirectoryEntry] = []
        while entries.count < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var isDirectory = Int32(entry.pointee.d_type) == Int32(DT_DIR)
            if Int32(entry.pointee.d_type) == Int32(DT_LNK) || Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                var st = stat()
                let full = path.hasSuffix("/") ? path + name : path + "/" + name
                isDirectory = stat(full, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            }
            entries.append(DirectoryEntry(name: name, isDirectory: isDirectory))
        }
        return entries
    }
}
