#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process: its environment variables, its id, its exit.
public enum ProcessEnvironment {
    /// The variable's value, nil when unset.
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Overwrites argument `index` (0 is the program) from its byte `offset`
    /// to its end with spaces, in the process's own argument vector, which
    /// is what ps(1) and /proc/PID/cmdline show (curl does this to -u's
    /// password). The length stays, so nothing else moves.
    public static func blankArgument(_ index: Int, from offset: Int) {
        guard index >= 0, index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] else { return }
        let length = strlen(argument)
        guard offset >= 0, offset < length else { return }
        memset(argument + offset, Int32(UInt8(ascii: " ")), length - offset)
    }

    /// exit(3): buffered C streams are flushed and atexit handlers run
    /// (the terminal is restored by one).
    public static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }
}
