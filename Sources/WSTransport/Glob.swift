#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileSystem {
    /// The paths a shell pattern (`tests/*.ndjson`, `a/[ab]?.har`) matches,
    /// sorted as the shell sorts them (glob(3)); a pattern without `*`, `?`
    /// or `[` is returned as it is, whether or not the file exists (opening
    /// it says what is wrong). Empty when a pattern matches nothing.
    public static func glob(_ pattern: String) -> [String] {
        guard pattern.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) else { return [pattern] }
        var found = glob_t()
        defer { globfree(&found) }
        guard systemGlob(pattern, &found) == 0 else { return [] }
        var paths: [String] = []
        for index in 0 ..< Int(found.gl_pathc) {
            if let path = found.gl_pathv[index] { paths.append(String(cString: path)) }
        }
        return paths
    }

    private static func systemGlob(_ pattern: String, _ found: inout glob_t) -> Int32 {
        #if canImport(Glibc)
        return Glibc.glob(pattern, 0, nil, &found)
        #else
        return Darwin.glob(pattern, 0, nil, &found)
        #endif
    }
}

extension ProcessEnvironment {
    /// getcwd(3); nil when it cannot be known (a removed directory).
    public static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(cString: buffer)
    }
}
