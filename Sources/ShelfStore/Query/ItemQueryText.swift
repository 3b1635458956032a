/// The query language of `ItemQuery.text`, parsed: what the text filters, what a list should
/// highlight, and what in it could not be understood.
///
/// The language, term by term (terms are separated by white space; every term narrows the
/// list, except that several owner terms widen each other):
///
/// | Term | Selects items |
/// |------|---------------|
/// | `moth` | with a word starting with "moth" in the title or notes (case and accents ignored) |
/// | `ドキュメント`, `🎂` | holding that text in the title or notes, as typed (see below) |
/// | `"exact phrase"` | with these whole words, in this order, in the title or in the notes |
/// | `-moth`, `-"a phrase"` | without that word prefix, without that phrase |
/// | `@ada`, `owner:ada`, `owner:"Ada L"` | whose owner's name or email starts with "ada" (ASCII case ignored); several owner terms: any of them |
/// | `status:open`, `status:done`, `is:open`, `is:done` | with that status |
/// | `prio:2`, `prio:>=2` (also `priority:`) | with that priority (0…3), or one compared to it |
/// | `created:<7d`, `updated:>2026-01-01` | created or last updated in that time |
///
/// Comparisons are `<`, `<=`, `>`, `>=` and `=` (no operator means `=`). Times are:
/// - ages, `N` followed by `h` (hours), `d` (days) or `w` (weeks), counted back from the
///   moment the query runs: `<` means younger (`created:<7d`, created less than 7 days ago),
///   `>` older, `=` between N and N+1 units old;
/// - UTC days, `YYYY-MM-DD`, read as GitHub reads them: `<2026-01-01` before that day,
///   `<=` up to its end, `>` after it, `>=` from its start, `=` during it;
/// - UTC timestamps, `YYYY-MM-DDTHH:MM:SSZ` (or with an offset, `+02:00`), a one-second span
///   compared like a day.
///
/// Mistakes never raise an error and never reach SQL or full-text syntax: each becomes a
/// `QueryProblem` and the part is left out, the rest still filters. Two kinds of problem
/// still filter, because leaving them out would lose what was typed: an unknown key with a
/// value (`colour:red`, `title:colon`) is searched as plain words, and a phrase with no
/// closing quote runs to the end of the text (so typing a phrase narrows as you type). A
/// word ending in a colon (`Re:`) and a colon followed by `/` (`http://x.org`) are plain
/// words with no problem. Only words and phrases can be excluded: `-status:done` is a problem.
///
/// Words that are not separated by spaces, in Chinese, Japanese, Korean, Thai, Lao, Khmer and
/// Myanmar text (`ドキュメント`), and symbols such as emoji (`🎂`), are found anywhere in the
/// title or the notes, exactly as typed (see `FullTextQuery.terms`).
///
/// A query searches at most `maximumWords` words (phrase words and runs count too), each at
/// most `maximumWordLength` characters long: the rest is left out with a problem, so that
/// every query costs a bounded time on every backend.
///
/// Parsing is cheap (microseconds for typed text, linear in the text) and pure: the same text
/// always gives the same value. Ages resolve against the clock only when the store builds SQL.
public struct ItemQueryText: Hashable, Sendable {
    /// The most words, phrase words and runs a query searches; past them a problem says
    /// how many there are, and the rest are left out.
    public static let maximumWords = 64
    /// The most characters (Unicode scalars) of one word that are searched; a longer word is
    /// searched as its start, with a problem.
    public static let maximumWordLength = 100

    /// The text this was parsed from.
    public let text: String
    /// The parts of `text` that were left out, in the order they appear.
    public let problems: [QueryProblem]
    /// What a row should highlight: the words (each a prefix of a word in the row) and the
    /// phrases (their text between the quotes) of the terms that select, in order, without
    /// duplicates. Excluded words and filter values (`owner:…`) are not included.
    public let highlightTerms: [String]

    /// Words and phrases every item must match.
    package let included: [TextTerm]
    /// Words and phrases no item may match; each excludes the items that match it whole.
    package let excluded: [TextTerm]
    /// Prefixes of owner names or emails, as typed; an item matches when any does.
    package let ownerPrefixes: [String]
    /// Statuses an item must have (all of them: two different ones select nothing).
    package let statuses: [Item.Status]
    /// Priorities an item may have: the intersection of every `prio:` term (may be empty,
    /// then nothing matches), or nil when there is no `prio:` term.
    package let priorities: Range<Int>?
    /// `created:` terms, all of which must hold.
    package let created: [DateTerm]
    /// `updated:` terms, all of which must hold.
    package let updated: [DateTerm]

    /// Parses `text`. Never fails: see `problems`.
    public init(_ text: String) {
        // The text of most reads (every unfiltered list page): parsed once per process.
        if text.isEmpty {
            self = Self.empty
            return
        }
        self.init(parsing: text)
    }

    /// The parse of the empty text.
    private static let empty = ItemQueryText(parsing: "")

    private init(parsing text: String) {
        var parser = QueryParser(text: text)
        parser.parse()
        self.text = text
        problems = parser.problems
        highlightTerms = parser.highlightTerms
        included = parser.included
        excluded = parser.excluded
        ownerPrefixes = parser.ownerPrefixes
        statuses = parser.statuses
        created = parser.created
        updated = parser.updated
        priorities = parser.priorityBounds
    }

    /// True when nothing in the text filters (empty, blank, only punctuation, only problems).
    public var isEmpty: Bool {
        included.isEmpty && excluded.isEmpty && ownerPrefixes.isEmpty && statuses.isEmpty && priorities == nil
            && created.isEmpty && updated.isEmpty
    }
}
