#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's byte search and compare, for the modules that do not
/// import it: on the per-message path (lines, type routes), where its
/// vectorised loops beat a byte loop. Inlined into the caller.
public enum Bytes {
    /// The index of the first `byte` in `count` bytes at `base`, or nil (memchr(3)).
    @inlinable @inline(__always)
    public static func firstIndex(of byte: UInt8, in base: UnsafeRawPointer, count: Int) -> Int? {
        guard let hit = memchr(base, Int32(byte), count) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// The `count` bytes at `a` and at `b` are the same (memcmp(3)).
    @inlinable @inline(__always)
    public static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }
}
