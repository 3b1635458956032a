internal import Foundation

/// Splits a query text into terms and reads each (see `ItemQueryText` for the language).
///
/// Works on `Character`s (grapheme clusters), so a combining mark stays with its letter and a
/// problem's column is what a terminal shows. Only `"`, `-`, `@`, `:` and white space are
/// syntax; everything else is text.
struct QueryParser {
    let text: String
    private(set) var problems: [QueryProblem] = []
    private(set) var highlightTerms: [String] = []
    private(set) var included: [TextTerm] = []
    private(set) var excluded: [TextTerm] = []
    private(set) var ownerPrefixes: [String] = []
    private(set) var statuses: [Item.Status] = []
    private(set) var priorityBounds: Range<Int>?
    private(set) var created: [DateTerm] = []
    private(set) var updated: [DateTerm] = []

    /// Keys with a value, in the order the messages list them.
    static let keys = ["owner", "status", "is", "prio", "priority", "created", "updated"]
    private static let knownKeys = QueryProblem.filterKeys

    init(text: String) {
        self.text = text
    }

    mutating func parse() {
        refuseControlCharacters()
        var index = text.startIndex
        while index < text.endIndex {
            if text[index].isWhitespace {
                index = text.index(after: index)
                continue
            }
            index = term(at: index)
        }
        if let firstLeftOut {
            problem(
                // Neutral about what happens next: the CLI refuses such a query, the browser
                // searches the words before this point and shows this problem.
                "the query has \(wordCount) words; at most \(ItemQueryText.maximumWords) can be searched: shorten it",
                firstLeftOut..<text.endIndex)
        }
        // Problems are in text order; control characters and the word limit were found apart.
        problems.sort { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// A problem for each control character other than tab and line breaks (which are white
    /// space): C0, DEL and C1. They separate words as punctuation does, so a text of them alone
    /// (`%00` in a URL) would select every item without a word of warning; a problem makes the
    /// CLI and the HTTP API refuse it, and a browser show it.
    private mutating func refuseControlCharacters() {
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if let scalar = text[index].unicodeScalars.first(where: Self.isRefusedControl) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                problem("a control character (\(code)) cannot be searched: remove it", index..<next)
            }
            index = next
        }
        columnMark = nil
    }

    private static func isRefusedControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    // MARK: Limits

    /// Words, phrase words and runs seen so far, included and excluded, searched or not.
    private var wordCount = 0
    /// The start of the first term with a word past `ItemQueryText.maximumWords`.
    private var firstLeftOut: String.Index?

    /// How many of the `count` words of the term at `range` are searched: all of them until
    /// `ItemQueryText.maximumWords` are, then none. The query's cost grows with its words
    /// (a phrase of 10,000 words took 7.5 s and 467 MB on SQLite; PostgreSQL ran out of stack).
    private mutating func admit(_ count: Int, termStart: String.Index) -> Int {
        let room = max(0, ItemQueryText.maximumWords - wordCount)
        wordCount += count
        if count > room, firstLeftOut == nil { firstLeftOut = termStart }
        return min(count, room)
    }

    /// `word`, or its first `ItemQueryText.maximumWordLength` scalars (with a problem at
    /// `range`) when it is longer: a longer word is searched as that prefix.
    private mutating func shortened(_ word: String, range: Range<String.Index>) -> String {
        let scalars = word.unicodeScalars
        guard scalars.count > ItemQueryText.maximumWordLength else { return word }
        problem(
            "a word of \(scalars.count) characters; only its first \(ItemQueryText.maximumWordLength) "
                + "are searched", range)
        var prefix = String.UnicodeScalarView()
        prefix.append(contentsOf: scalars.prefix(ItemQueryText.maximumWordLength))
        return String(prefix)
    }

    /// The words and runs of `text` that are searched (see `admit` and `shortened`).
    private mutating func searched(in text: Substring, range: Range<String.Index>) -> (
        words: [String], runs: [String]
    ) {
        let room = max(0, ItemQueryText.maximumWords - wordCount)
        let (words, runs, count) = FullTextQuery.terms(in: String(text), keeping: room)
        let kept = admit(count, termStart: range.lowerBound)
        return (
            words.prefix(kept).map { shortened($0, range: range) },
            runs.prefix(max(0, kept - words.count)).map { shortened($0, range: range) }
        )
    }

    // MARK: Terms

    /// Reads the term starting at `start` (not white space) and returns where it ends.
    private mutating func term(at start: String.Index) -> String.Index {
        var index = start
        var negated = false
        if text[index] == "-" {
            let next = text.index(after: index)
            // A lone "-" (or "- ") is punctuation, as it always was.
            guard next < text.endIndex, !text[next].isWhitespace else { return next }
            negated = true
            index = next
        }
        if text[index] == "\"" {
            return phrase(at: index, termStart: start, negated: negated)
        }
        // The token runs to white space; a quote right after "key:" opens a quoted value.
        var end = index
        var colon: String.Index?
        while end < text.endIndex, !text[end].isWhitespace {
            if text[end] == ":", colon == nil {
                colon = end
                let next = text.index(after: end)
                if next < text.endIndex, text[next] == "\"", isKey(text[index..<end]) {
                    return keyTerm(
                        key: text[index..<end], valueStart: next, termStart: start, negated: negated,
                        quoted: true)
                }
            }
            end = text.index(after: end)
        }
        let token = text[index..<end]
        if token.first == "@" {
            if negated {
                problem("only words and phrases can be excluded with -; remove the -", start..<end)
            } else {
                owner(token.dropFirst(), range: start..<end, keyLength: 1)
            }
            return end
        }
        if let colon, isKey(text[index..<colon]) {
            let value = text[text.index(after: colon)..<end]
            let known = Self.keys.contains(text[index..<colon].lowercased())
            // "Re:" and "http://…" are text, not filters.
            if known || !(value.isEmpty || value.hasPrefix("/")) {
                return keyTerm(
                    key: text[index..<colon], valueStart: text.index(after: colon), termStart: start,
                    negated: negated, quoted: false)
            }
        }
        words(token, range: start..<end, negated: negated)
        return end
    }

    /// A key is ASCII letters only: anything else before a colon is text (`12:30`, `C++:`).
    private func isKey(_ key: Substring) -> Bool {
        !key.isEmpty && key.allSatisfy { $0.isASCII && $0.isLetter }
    }

    /// The words of `token` (at `range`), each a prefix, and its runs, each a substring (see
    /// `FullTextQuery.terms`). Excluded, each excludes what it matches: `-happy🎂` leaves out
    /// items with a word starting "happy" and items holding 🎂.
    private mutating func words(_ token: Substring, range: Range<String.Index>, negated: Bool) {
        let (words, runs) = searched(in: token, range: range)
        var terms: [TextTerm] = words.isEmpty ? [] : [.words(words)]
        terms += runs.map(TextTerm.substring)
        if negated {
            excluded += terms
        } else {
            included += terms
            for word in words + runs where !highlightTerms.contains(word) { highlightTerms.append(word) }
        }
    }

    /// A quoted phrase at `quote`; returns the index after its closing quote.
    private mutating func phrase(at quote: String.Index, termStart: String.Index, negated: Bool) -> String.Index {
        let (inner, end, closed) = quoted(at: quote)
        if !closed {
            problem("a phrase wants a closing \" (it runs to the end of the text)", termStart..<end)
        }
        // Runs in a phrase are substrings the phrase's items must hold as well: the index of
        // words cannot place them between its words.
        let problemsBefore = problems.count
        let (words, runs) = searched(in: inner, range: termStart..<end)
        // Shown as typed unless part of it is not searched (left out or shortened).
        let isWhole = firstLeftOut == nil && problems.count == problemsBefore
        var terms: [TextTerm] = words.isEmpty ? [] : [.phrase(words)]
        terms += runs.map(TextTerm.substring)
        guard !terms.isEmpty else { return end }
        if negated {
            excluded += terms
        } else {
            included += terms
            let shown = isWhole ? inner.trimmingCharacters(in: .whitespaces) : (words + runs).joined(separator: " ")
            if !shown.isEmpty, !highlightTerms.contains(shown) { highlightTerms.append(shown) }
        }
        return end
    }

    /// The text between the quote at `quote` and the next one (or the end), the index after
    /// the closing quote, and whether there was one.
    private func quoted(at quote: String.Index) -> (Substring, String.Index, Bool) {
        let start = text.index(after: quote)
        guard let close = text[start...].firstIndex(of: "\"") else {
            return (text[start...], text.endIndex, false)
        }
        return (text[start..<close], text.index(after: close), true)
    }

    /// A `key:value` term; `valueStart` is just after the colon. Returns where it ends.
    private mutating func keyTerm(
        key: Substring, valueStart: String.Index, termStart: String.Index, negated: Bool, quoted isQuoted: Bool
    ) -> String.Index {
        let value: Substring
        let end: String.Index
        if isQuoted {
            let (inner, after, closed) = quoted(at: valueStart)
            if !closed {
                problem("\(key.lowercased()): wants a closing \" after its value", termStart..<after)
                return after
            }
            (value, end) = (inner, after)
        } else {
            end = text[valueStart...].firstIndex(where: \.isWhitespace) ?? text.endIndex
            value = text[valueStart..<end]
        }
        let range = termStart..<end
        let name = key.lowercased()
        guard Self.keys.contains(name) else {
            // Searched as words all the same ("title:colon" finds it, as it always did); the
            // problem tells a mistyped filter apart.
            problem(
                "unknown filter \(key):, searched as words; filters are \(Self.knownKeys) "
                    + "(put the words in quotes to search for them without this note)", range,
                unknownFilter: String(key))
            words(text[(negated ? text.index(after: termStart) : termStart)..<end], range: range, negated: negated)
            return end
        }
        if negated {
            problem("only words and phrases can be excluded with -; remove the -", range)
            return end
        }
        switch name {
        case "owner": owner(value, range: range, keyLength: key.count + 1)
        case "status", "is": status(value, key: name, range: range)
        case "prio", "priority": priority(value, key: name, range: range)
        default: date(value, key: name, range: range)
        }
        return end
    }

    // MARK: Values

    private mutating func owner(_ value: Substring, range: Range<String.Index>, keyLength: Int) {
        let prefix = value.trimmingCharacters(in: .whitespaces)
        guard !prefix.isEmpty else {
            let key = keyLength == 1 ? "@" : "owner:"
            problem("\(key) wants the start of an owner's name or email, like \(key)ada", range)
            return
        }
        if !ownerPrefixes.contains(prefix) { ownerPrefixes.append(prefix) }
    }

    private mutating func status(_ value: Substring, key: String, range: Range<String.Index>) {
        guard let status = Item.Status(rawValue: value.lowercased()) else {
            problem("\(key): wants open or done", range)
            return
        }
        if !statuses.contains(status) { statuses.append(status) }
    }

    private mutating func priority(_ value: Substring, key: String, range: Range<String.Index>) {
        let (comparison, number) = Self.comparison(value)
        guard number.allSatisfy({ $0.isASCII && $0.isNumber }), let priority = Int(number),
            Item.priorities.contains(priority)
        else {
            problem("\(key): wants 0…3 or a comparison like >=2", range)
            return
        }
        let low = Item.priorities.lowerBound
        let high = Item.priorities.upperBound + 1
        let bounds: Range<Int> =
            switch comparison {
            case .equal: priority..<(priority + 1)
            case .less: low..<priority
            case .lessOrEqual: low..<(priority + 1)
            case .greater: min(priority + 1, high)..<high
            case .greaterOrEqual: priority..<high
            }
        // Terms narrow each other; an empty range (`prio:<0`) selects nothing.
        priorityBounds = priorityBounds.map { $0.clamped(to: bounds) } ?? bounds
    }

    private mutating func date(_ value: Substring, key: String, range: Range<String.Index>) {
        let (comparison, rest) = Self.comparison(value)
        guard let parsed = Self.dateValue(rest) else {
            if Self.isAgeOutOfRange(rest) {
                problem(
                    "\(key): the age \(rest) is out of range; an age is at most 100000 hours, days or weeks "
                        + "(like <100000w), or give a day like >=1800-01-01", range)
                return
            }
            problem(
                "\(key): wants an age like <7d (h, d or w), a day like >=2026-01-01 or a time like "
                    + "<2026-01-01T12:00:00Z", range)
            return
        }
        let term = DateTerm(comparison: comparison, value: parsed)
        if key == "created" { created.append(term) } else { updated.append(term) }
    }

    /// The comparison at the start of `value` (`=` when none) and the rest.
    static func comparison(_ value: Substring) -> (QueryComparison, Substring) {
        for comparison in QueryComparison.allCases where value.hasPrefix(comparison.rawValue) {
            return (comparison, value.dropFirst(comparison.rawValue.count))
        }
        return (.equal, value)
    }

    static let hour: Int64 = 3_600_000
    static let units: [Character: Int64] = ["h": hour, "d": 24 * hour, "w": 7 * 24 * hour]

    /// An age (`7d`), a UTC day (`2026-01-01`) or a UTC timestamp; nil when it is none.
    static func dateValue(_ text: Substring) -> DateTerm.Value? {
        guard let last = text.last, text.allSatisfy(\.isASCII) else { return nil }
        if let unit = units[Character(last.lowercased())] {
            let digits = text.dropLast()
            // Up to 100,000 units: about 11 years of hours, 2,700 years of weeks.
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isNumber), let count = Int64(digits),
                count <= 100_000
            else { return nil }
            return .age(count: count, unitMilliseconds: unit)
        }
        if text.count == 10, let day = day(text) {
            return .span(start: day * 24 * hour, end: (day + 1) * 24 * hour)
        }
        if text.count > 10, let start = timestamp(String(text)) {
            return .span(start: start, end: start + 1000)
        }
        return nil
    }

    /// True when `text` has an age's form (digits, then h, d or w) but more units than
    /// `dateValue(_:)` allows.
    static func isAgeOutOfRange(_ text: Substring) -> Bool {
        guard let last = text.last, units[Character(last.lowercased())] != nil else { return false }
        let digits = text.dropLast()
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Days since 1970 of `YYYY-MM-DD`, a real day of the Gregorian calendar.
    static func day(_ text: Substring) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return Int64(CivilDate.daysSince1970(year: year, month: month, day: day))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Milliseconds since 1970 of an ISO 8601 timestamp to the second, in UTC when it names
    /// no zone.
    static func timestamp(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let hasZone = text.hasSuffix("Z") || text.hasSuffix("z") || text.dropFirst(10).contains { "+-".contains($0) }
        guard let date = formatter.date(from: hasZone ? text : text + "Z") else { return nil }
        return TimeFormat.milliseconds(since1970: date)
    }

    /// The last problem's start and column: problems come in text order, so each column is
    /// counted on from the last one (a text of many problems stays linear).
    private var columnMark: (index: String.Index, column: Int)?

    private mutating func problem(_ message: String, _ range: Range<String.Index>, unknownFilter: String? = nil) {
        let mark = columnMark ?? (text.startIndex, 1)
        let column = mark.column + text.distance(from: mark.index, to: range.lowerBound)
        columnMark = (range.lowerBound, column)
        let length = text.distance(from: range.lowerBound, to: range.upperBound)
        problems.append(
            QueryProblem(message, range: range, column: column, length: length, unknownFilter: unknownFilter))
    }
}
