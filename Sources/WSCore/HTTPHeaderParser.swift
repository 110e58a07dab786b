/// Collects an HTTP/1.1 message head (start line + header fields + empty line)
/// from a byte stream and parses it; shared by both handshake sides.
///
/// The head ends at the first empty line (RFC 7230 §3: CRLF CRLF; a bare LF
/// is accepted as a line end too, §3.5, except in a request: `requiresCRLF`). Bytes after it belong to the
/// WebSocket stream and are handed back as `leftover`. The head may be at most
/// 16 KiB: a peer cannot make us buffer without bound.
struct HTTPHeaderParser: Sendable {
    enum Result {
        case needMoreData
        case complete(HTTPHead, leftover: [UInt8])
        case tooLarge
        case malformed(String)
    }

    static let maxHeadSize = 16 * 1024

    private var buffer: [UInt8] = []
    /// Where the search for the terminator resumes (bytes before it were searched).
    private var scanned = 0
    /// Every line must end in CRLF (a request to wspipe's server): a bare LF
    /// is refused rather than taken as a line end. A proxy in front that
    /// reads only CRLF as a line end would see `X-A: a<LF>X-Forwarded-For: …`
    /// as one header and pass it on, and the program would see two: the LF
    /// in a value RFC 9110 §5.5 says to reject.
    private let requiresCRLF: Bool

    init(requiresCRLF: Bool = false) {
        self.requiresCRLF = requiresCRLF
    }

    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Result {
        buffer.append(contentsOf: bytes)
        guard let end = findEndOfHead() else {
            return buffer.count > HTTPHeaderParser.maxHeadSize ? .tooLarge : .needMoreData
        }
        if end > HTTPHeaderParser.maxHeadSize { return .tooLarge }
        let leftover = Array(buffer[end...])
        if requiresCRLF, let bare = HTTPHeaderParser.bareLineFeed(in: buffer[..<end]) {
            return .malformed(bare)
        }
        switch HTTPHeaderParser.parse(buffer[..<end]) {
        case .success(let head): return .complete(head, leftover: leftover)
        case .failure(let error): return .malformed(error.reason)
        }
    }

    /// Index just past the empty line that ends the head, if it has arrived.
    private mutating func findEndOfHead() -> Int? {
        var i = scanned
        while i < buffer.count {
            if buffer[i] == 0x0A {
                // LF LF, or LF CR LF: the line that just ended was empty.
                if i + 1 < buffer.count && buffer[i + 1] == 0x0A { return i + 2 }
                if i + 2 < buffer.count && buffer[i + 1] == 0x0D && buffer[i + 2] == 0x0A { return i + 3 }
                if i + 2 >= buffer.count { break }  // need to see what follows
            }
            i += 1
        }
        scanned = i
        return nil
    }

    /// The complaint about an LF without its CR, if `head` has one.
    static func bareLineFeed(in head: ArraySlice<UInt8>) -> String? {
        var i = head.startIndex
        while let lf = head[i...].firstIndex(of: 0x0A) {
            if lf == head.startIndex || head[lf - 1] != 0x0D { return "LF without CR (RFC 9112 §2.2, RFC 9110 §5.5)" }
            i = lf + 1
        }
        return nil
    }

    struct ParseError: Error {
        var reason: String
    }

    /// Splits the head into lines (LF, optional CR before it) and fields.
    static func parse(_ head: ArraySlice<UInt8>) -> Swift.Result<HTTPHead, ParseError> {
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let startLine = lines.first, !startLine.isEmpty else {
            return .failure(ParseError(reason: "empty HTTP head"))
        }
        // RFC 9110 §5.5: CR, LF and NUL in a field value are "invalid and
        // dangerous" (a CGI variable would end at the NUL, a bare CR may end
        // a line for another parser); a recipient rejects the message or
        // replaces them. Rejected here, in the request line too.
        if lines.contains(where: { $0.contains(0x0D) || $0.contains(0x00) }) {
            return .failure(ParseError(reason: "CR or NUL inside a line (RFC 9110 §5.5)"))
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let field = parseField(line) else {
                return .failure(ParseError(reason: "malformed header line"))
            }
            headers.append(field)
        }
        return .success(HTTPHead(startLine: String(decoding: startLine, as: UTF8.self), headers: headers))
    }

    /// `name ":" OWS value OWS` (RFC 7230 §3.2). No whitespace before the colon
    /// (§3.2.4 says reject it) and no obsolete line folding.
    private static func parseField(_ line: ArraySlice<UInt8>) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(ASCII.isTokenCharacter) else { return nil }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
        return (String(decoding: name, as: UTF8.self), ASCII.trimmed(value))
    }
}
