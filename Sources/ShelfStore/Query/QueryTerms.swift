internal import Foundation

/// A full-text part of a query: words that must all be found as prefixes, an exact phrase,
/// or a run of text without spaces to be found as it is.
package enum TextTerm: Hashable, Sendable {
    /// Every word must start a word of the title or notes (`FullTextQuery.words`).
    case words([String])
    /// The words, whole and in this order, next to each other in the title or in the notes.
    case phrase([String])
    /// The text, exactly as typed (no folding), somewhere in the title or in the notes: a run
    /// of a script written without spaces, or of symbols (`FullTextQuery.terms`). The
    /// full-text index of words cannot answer it: see Migrations/0007_substring_search.sql.
    case substring(String)

    /// The term's words, in order; a substring's text is its one word.
    package var words: [String] {
        switch self {
        case .words(let words), .phrase(let words): words
        case .substring(let text): [text]
        }
    }

    /// True for `.substring`: a term the index of words cannot answer.
    package var isSubstring: Bool {
        if case .substring = self { return true }
        return false
    }
}

/// `<`, `<=`, `>`, `>=` or `=` in a `key:value` term; no operator means `=`.
package enum QueryComparison: String, Hashable, Sendable, CaseIterable {
    case lessOrEqual = "<="
    case greaterOrEqual = ">="
    case less = "<"
    case greater = ">"
    case equal = "="
}

/// A half-open range of stored milliseconds: `lower <= t < upper`, either end open when nil.
package struct MillisecondRange: Hashable, Sendable {
    package var lower: Int64?
    package var upper: Int64?

    /// `lower <= t < upper`; an end left out is open.
    package init(lower: Int64? = nil, upper: Int64? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// The range of both `self` and `other`.
    package func intersection(_ other: MillisecondRange) -> MillisecondRange {
        MillisecondRange(
            lower: [lower, other.lower].compactMap { $0 }.max(),
            upper: [upper, other.upper].compactMap { $0 }.min())
    }
}

/// The value of a `created:` or `updated:` term, resolved against the current time only when
/// SQL is built, so a cached query stays right as time passes.
package struct DateTerm: Hashable, Sendable {
    /// A point in the past given as an age, or a span of calendar time.
    package enum Value: Hashable, Sendable {
        /// An age: `count` units of `unitMilliseconds` before now (`7d`: 7 days).
        case age(count: Int64, unitMilliseconds: Int64)
        /// A span of time: a UTC day (`2026-01-01`) or one second (`2026-01-01T12:00:00Z`),
        /// as `start <= t < end` in milliseconds.
        case span(start: Int64, end: Int64)
    }

    package var comparison: QueryComparison
    package var value: Value

    /// The stored times the term selects, at `now` (milliseconds since 1970).
    ///
    /// A span reads as on GitHub: `<D` before the span, `<=D` up to its end, `>D` after it,
    /// `>=D` from its start, `=D` inside it. An age compares ages: `<7d` is younger than 7
    /// days (created after now − 7d), `>7d` older, `=7d` between 7 and 8 days old.
    package func range(now: Int64) -> MillisecondRange {
        switch value {
        case .span(let start, let end):
            switch comparison {
            case .less: return MillisecondRange(lower: nil, upper: start)
            case .lessOrEqual: return MillisecondRange(lower: nil, upper: end)
            case .greater: return MillisecondRange(lower: end, upper: nil)
            case .greaterOrEqual: return MillisecondRange(lower: start, upper: nil)
            case .equal: return MillisecondRange(lower: start, upper: end)
            }
        case .age(let count, let unit):
            // The moment that is exactly `count` units old; saturating, so absurd ages stay
            // absurd instead of wrapping into the future.
            let (span, overflow) = count.multipliedReportingOverflow(by: unit)
            let point = overflow ? Int64.min / 2 : now - span
            let older = overflow ? Int64.min / 2 : point - unit
            switch comparison {
            // Younger than the age: after the point.
            case .less: return MillisecondRange(lower: point + 1, upper: nil)
            case .lessOrEqual: return MillisecondRange(lower: point, upper: nil)
            // Older than the age: before the point.
            case .greater: return MillisecondRange(lower: nil, upper: point)
            case .greaterOrEqual: return MillisecondRange(lower: nil, upper: point + 1)
            // `count` units old, not yet `count + 1`.
            case .equal: return MillisecondRange(lower: older + 1, upper: point + 1)
            }
        }
    }
}
