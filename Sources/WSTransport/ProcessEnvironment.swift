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

    public static var processID: Int32 { getpid() }

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
