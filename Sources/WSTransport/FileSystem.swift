#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files by path, for the modules that do not import the C library (the
/// history file's directory, its rewrite through a temporary file). Reading
/// and writing go through `FD`.
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
}
