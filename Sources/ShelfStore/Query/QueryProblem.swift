/// A part of a query text that could not be understood, and what was expected there.
///
/// A problem never stops the rest of the query from filtering: the part it names is left
/// out (see `ItemQueryText` for what each kind of mistake does), and everything else applies.
/// A browser shows problems inline, under the text; the CLI refuses a query with one.
public struct QueryProblem: Hashable, Sendable, CustomStringConvertible {
    /// Where the faulty part is in the text the query was parsed from. Valid only for that
    /// exact string.
    public let range: Range<String.Index>
    /// The 1-based column of the start of `range`, counted in characters (grapheme clusters)
    /// as a terminal shows them: a combining mark does not move it, an emoji counts once.
    public let column: Int
    /// How many characters (grapheme clusters) the faulty part spans; at least 1 unless the
    /// text itself ends where the problem is.
    public let length: Int
    /// What is wrong and what is expected, in one sentence without a trailing period, e.g.
    /// `prio: wants 0…3 or a comparison like >=2`.
    public let message: String
    /// The key as typed, when the problem is a `key:` that names no filter (`sort:owner`):
    /// a program that refuses the query words it itself, since `message` says what the
    /// browser's search does with it (searches it as words).
    package let unknownFilter: String?

    /// The filters' keys, as messages list them.
    package static let filterKeys = "owner:, @, status:, is:, prio:, created:, updated:"

    /// A problem at `range` of a text, whose start is at `column`.
    init(
        _ message: String, range: Range<String.Index>, column: Int, length: Int, unknownFilter: String? = nil
    ) {
        self.range = range
        self.message = message
        self.column = column
        self.length = length
        self.unknownFilter = unknownFilter
    }

    /// `column 6: prio: wants 0…3 or a comparison like >=2`.
    public var description: String { "column \(column): \(message)" }
}
