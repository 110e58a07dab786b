#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files by path, for the modules that do not import the C library (the
/// history file's directory, its rewrite through a temporary file, the
/// saved messages' directory, the names in a directory for the interactive
/// mode's Tab). Reading and writing go through `FD`.
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

    /// True when `path` names nothing (ENOENT): a cookie file that does not
    /// exist yet is an empty one, as curl reads it.
    public static func isMissing(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 && currentErrno() == ENOENT
    }

    /// chmod(2).
    public static func setPermissions(_ path: String, _ permissions: UInt32) -> IOError? {
        chmod(path, mode_t(permissions)) == 0 ? nil : IOError(call: "chmod", errno: currentErrno())
    }

    /// The permission bits of what `path` names (stat(2)), nil when it cannot be read.
    public static func permissions(_ path: String) -> UInt32? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return UInt32(st.st_mode & 0o777)
    }

    /// rename(2): atomically replaces `destination`.
    public static func rename(_ source: String, to destination: String) -> IOError? {
        systemRename(source, destination) == 0 ? nil : IOError(call: "rename", errno: currentErrno())
    }

    /// unlink(2); a missing file is not an error.
    public static func remove(_ path: String) {
        _ = unlink(path)
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
