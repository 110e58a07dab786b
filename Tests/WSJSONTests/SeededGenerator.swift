/// A linear congruential generator for the randomised tests: the same
/// sequence on every run, so a failure can be replayed from its seed.
struct SeededGenerator {
    var state: UInt64

    /// A number in 0..<bound.
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}
