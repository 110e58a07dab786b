/// The Public Suffix List (https://publicsuffix.org/list/), so that a
/// cookie cannot be set for a whole registry: `Domain=co.uk` or
/// `Domain=github.io` would be sent to every site under it (RFC 6265 §5.3
/// step 5; curl with libpsl refuses them too). The table is generated from
/// Debian's `publicsuffix` package by Tests/tools/public-suffix-table.sh
/// (PublicSuffixTable.swift, which says the list's date).
enum PublicSuffix {
    /// The rules, read from the table the first time a cookie names a domain.
    private struct Rules: Sendable {
        /// Plain rules (`co.uk`).
        var plain: Set<String> = []
        /// What a wildcard rule stands under (`*.ck` is stored as `ck`).
        var wildcardParents: Set<String> = []
        /// Exception rules (`!www.ck` is stored as `www.ck`).
        var exceptions: Set<String> = []
    }

    private static let rules: Rules = {
        var rules = Rules()
        for line in table.split(separator: "\n") {
            let colon = line.firstIndex(of: ":")
            let tld = String(line[..<(colon ?? line.endIndex)])
            rules.plain.insert(tld)
            guard let colon else { continue }
            for rule in line[line.index(after: colon)...].split(separator: " ") {
                if rule.first == "!" {
                    rules.exceptions.insert(rule.dropFirst() + "." + tld)
                } else if rule == "*" {
                    rules.wildcardParents.insert(tld)
                } else if rule.hasPrefix("*.") {
                    rules.wildcardParents.insert(rule.dropFirst(2) + "." + tld)
                } else {
                    rules.plain.insert(rule + "." + tld)
                }
            }
        }
        return rules
    }()

    /// `domain` (lower case, no leading or trailing dot) is a public suffix:
    /// the prevailing rule of the list's algorithm matches all of it. That
    /// is a plain rule equal to it, or a wildcard rule one label shorter,
    /// unless an exception names it; a single label always is one (the
    /// list's implicit `*` rule).
    static func isPublicSuffix(_ domain: String) -> Bool {
        guard !domain.isEmpty else { return false }
        guard let dot = domain.firstIndex(of: ".") else { return true }
        if rules.exceptions.contains(domain) { return false }
        return rules.plain.contains(domain) || rules.wildcardParents.contains(String(domain[domain.index(after: dot)...]))
    }
}
