/// One key and what it does, for a line of hints ("Ctrl-S save"), with its rank: when the
/// line is narrower than all of its hints, those of the highest rank are left out first.
public struct KeyHint: Hashable, Sendable {
    /// The key and its words: "Ctrl-S save".
    public var text: String
    /// 1 for what the line must say (save, the way out), which is never left out; higher
    /// numbers for what matters less.
    public var rank: Int

    /// `text` at `rank` (1 stays whatever the width).
    public init(_ text: String, rank: Int) {
        self.text = text
        self.rank = rank
    }

    /// `hints` in their order, joined by `separator`, leaving out as few of them as make the
    /// line fit in `width` columns (as `measure` counts them): the highest rank first, and of
    /// one rank the last first. Hints of rank 1 stay even when they alone do not fit (the view
    /// cuts the line then).
    public static func line(
        _ hints: [KeyHint], width: Int = .max, separator: String = " · ", measure: (String) -> Int = { $0.count }
    ) -> String {
        var kept = hints
        var text = kept.map(\.text).joined(separator: separator)
        while measure(text) > width, let worst = kept.map(\.rank).max(), worst > 1,
            let index = kept.lastIndex(where: { $0.rank == worst })
        {
            kept.remove(at: index)
            text = kept.map(\.text).joined(separator: separator)
        }
        return text
    }
}
