/// A small, fast random number generator that gives the same numbers for the same seed, on
/// every platform and run (SplitMix64).
///
/// For data that must be repeatable: `shelf demo`'s sample users and items, the shuffles
/// and paging data of tests, the benchmarks' inputs. Not for anything secret.
///
/// ```swift
/// var generator = SeededRandomNumberGenerator(seed: 42)
/// let priority = Int.random(in: 0...3, using: &generator)  // the same on every run
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
