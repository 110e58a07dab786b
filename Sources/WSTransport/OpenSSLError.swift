import COpenSSL

/// Reading OpenSSL's per-thread error queue.
enum OpenSSLError {
    /// Empties the queue and returns its oldest entry (the root cause, e.g.
    /// "No such file or directory" under the later "system lib" wrappers), or
    /// nil when the queue was empty.
    static func takeFirst() -> (code: UInt, text: String)? {
        var first: (code: UInt, text: String)?
        while true {
            let code = ERR_get_error()
            if code == 0 { return first }
            if first == nil { first = (code, text(code)) }
        }
    }

    /// The text of `takeFirst()`.
    static func take() -> String? {
        takeFirst()?.text
    }

    /// OpenSSL 3 packs errno into system errors (ERR_SYSTEM_FLAG, the top bit
    /// of the 32-bit code) and has no reason string for them: use strerror.
    private static func text(_ code: UInt) -> String {
        let systemFlag: UInt = 0x8000_0000
        if code & systemFlag != 0 { return errnoText(Int32(truncatingIfNeeded: code & (systemFlag - 1))) }
        if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
        // Reasons without a string (rare): the full "error:XXXXXXXX:lib:func:reason" form.
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
