/// "Did you mean" for unknown long options, and for websocat's ways of
/// saying what wspipe says otherwise.
enum Suggestion {
    /// websocat's short options wspipe spells another way: `-s PORT` is
    /// websocat's server mode.
    static func forWebsocatShort(_ letter: Character) -> String? {
        letter == "s" ? "listen" : nil
    }

    /// websocat's listening address (`ws-l:HOST:PORT`, `ws-listen:...`,
    /// `l-ws:`): the address wspipe's --listen takes.
    static func websocatListen(_ arg: String) -> String? {
        for prefix in ["ws-l:", "ws-listen:", "l-ws:"] where arg.lowercased().hasPrefix(prefix) {
            return String(arg.dropFirst(prefix.count))
        }
        return nil
    }

    /// The candidate closest to `typed`: the first (in table order) that
    /// starts with it, for abbreviations like "--conn"; else the nearest
    /// within edit distance 2, ties going to the earlier candidate. The
    /// distance must also be smaller than the typed length, so "--x" does not
    /// suggest every short name.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        if typed.count >= 2, let prefixed = candidates.first(where: { $0.hasPrefix(typed) }) {
            return prefixed
        }
        var best: (name: String, distance: Int)? = nil
        for candidate in candidates {
            let distance = editDistance(typed, candidate)
            if distance <= 2, distance < typed.count, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions
    /// and swaps of two adjacent characters each cost 1 ("hedaer" -> "header"
    /// is 1: typing two letters in the wrong order is the commonest slip).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows: two back (for swaps), previous, current.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, twoBack[j - 2] + 1)
                }
                current[j] = value
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}
