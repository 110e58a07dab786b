import XCTest
@testable import WSBridge

/// The `${re:REGEX}` matcher's regular expressions (wspipe(1): CHECKING A
/// SERVER): the documented syntax, whole-string matching, the refusals, and
/// time linear in the input whatever the pattern.
final class RegexPatternTests: XCTestCase {
    private func assertMatches(_ pattern: String, _ yes: [String], _ no: [String],
                               file: StaticString = #filePath, line: UInt = #line) {
        let regex: RegexPattern
        do { regex = try RegexPattern(pattern) } catch {
            return XCTFail("/\(pattern)/ refused: \(error)", file: file, line: line)
        }
        for text in yes { XCTAssertTrue(regex.matches(text), "/\(pattern)/ should match \"\(text)\"", file: file, line: line) }
        for text in no { XCTAssertFalse(regex.matches(text), "/\(pattern)/ should not match \"\(text)\"", file: file, line: line) }
    }

    private func assertRefused(_ pattern: String, _ reason: String, at offset: Int? = nil,
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try RegexPattern(pattern)
            XCTFail("/\(pattern)/ accepted", file: file, line: line)
        } catch {
            XCTAssertTrue(error.reason.contains(reason), "\(error)", file: file, line: line)
            if let offset { XCTAssertEqual(error.offset, offset, file: file, line: line) }
        }
    }

    func testLiteralsMatchTheWholeString() {
        assertMatches("abc", ["abc"], ["ab", "abcd", "xabc", ""])
        assertMatches("", [""], ["a"])
        assertMatches("a\\.b\\*", ["a.b*"], ["axb*", "a.bb"])
        assertMatches("née 😀", ["née 😀"], ["nee 😀"])
    }

    func testDotClassesAndEscapes() {
        assertMatches("a.c", ["abc", "a😀c", "a.c"], ["a\nc", "ac"])
        assertMatches("[a-c]x[^0-9]", ["axz", "cx-"], ["dxz", "ax5"])
        assertMatches("[]a]", ["]", "a"], ["b"])
        assertMatches("[a-]", ["a", "-"], ["b"])
        assertMatches("\\d+", ["0", "2026"], ["", "1a", "٣"])
        assertMatches("\\w+", ["snake_case9"], ["kebab-case"])
        assertMatches("\\s\\S", [" x", "\tx"], ["xx", "  "])
        assertMatches("[\\d.]+", ["1.25"], ["1,25"])
        assertMatches("[^\\s]+", ["abc"], ["a c"])
        assertMatches("\\x41\\u00e9\\u{1F600}\\t", ["Aé😀\t"], ["Ae😀\t"])
    }

    func testGroupsAlternationAndRepeats() {
        assertMatches("(ab|cd)+", ["ab", "abcd", "cdcdab"], ["", "abc", "ac"])
        assertMatches("(?:x|y)?z", ["z", "xz", "yz"], ["xyz"])
        assertMatches("(?<id>[a-f0-9]{8})-[a-f0-9]{4}", ["deadbeef-0a1b"], ["deadbee-0a1b", "deadbeef-0a1"])
        assertMatches("a{2,}", ["aa", "aaaaa"], ["a"])
        assertMatches("a{1,3}", ["a", "aaa"], ["", "aaaa"])
        assertMatches("a{3}", ["aaa"], ["aa", "aaaa"])
        assertMatches("a*?b+?", ["b", "aab"], ["aa"])
        assertMatches("x{", ["x{"], ["x"])   // a brace that is no repeat is literal
        assertMatches("colou?r", ["color", "colour"], ["colouur"])
    }

    func testAnchorsAndWordBoundaries() {
        assertMatches("^abc$", ["abc"], ["abcd"])
        assertMatches(".*\\bcat\\b.*", ["a cat here", "cat"], ["concatenate"])
        assertMatches(".*\\Bcat\\B.*", ["concatenate"], ["a cat"])
        assertMatches("a^b", [], ["ab", "a^b"])
    }

    func testIgnoringCase() {
        assertMatches("(?i)hello [a-c]+", ["HeLLo ABC", "hello abc"], ["hello abd"])
        assertMatches("(?i)éte", ["ÉTE"], ["ete"])
    }

    func testRefusals() {
        assertRefused("a(b", "without its ')'", at: 1)
        assertRefused("a)b", "unmatched ')'", at: 1)
        assertRefused("*a", "nothing to repeat", at: 0)
        assertRefused("a**", "a quantifier after a quantifier", at: 2)
        assertRefused("(a)\\1", "back-references", at: 3)
        assertRefused("(?=a)", "look-arounds")
        assertRefused("(?<!a)b", "look-arounds")
        assertRefused("a++", "possessive")
        assertRefused("[a", "without its ']'", at: 0)
        assertRefused("[z-a]", "out of order")
        assertRefused("a{2,1}", "below the minimum")
        assertRefused("a{1001}", "above 1000")
        assertRefused("\\q", "unknown escape")
        assertRefused("a\\", "ending in")
        assertRefused("x(?i)", "very start")
        assertRefused("((a{1000}){1000}){1000}", "too large")
        assertRefused(String(repeating: "(", count: 200) + String(repeating: ")", count: 200), "deeper")
    }

    /// The patterns that make a backtracking engine take exponential time
    /// answer here in one pass over the string (this test would not end otherwise).
    func testNoCatastrophicBacktracking() throws {
        let long = String(repeating: "a", count: 20_000)
        XCTAssertFalse(try RegexPattern("(a*)*b").matches(long))
        XCTAssertFalse(try RegexPattern("(a|aa)+$b").matches(long))
        XCTAssertFalse(try RegexPattern("(a|a)*c").matches(long))
        XCTAssertTrue(try RegexPattern("(a+)+").matches(long))
        XCTAssertFalse(try RegexPattern("(x+x+)+y").matches(String(repeating: "x", count: 5000)))
    }
}
