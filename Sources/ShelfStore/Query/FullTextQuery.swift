/// Turns the words and phrases of text typed by a person into safe FTS5 MATCH expressions.
///
/// The text is split into words the way the `unicode61` tokenizer splits them (letters,
/// digits and marks make words; everything else separates them). Each word becomes a quoted
/// prefix phrase, `"word"*`, and the phrases are joined with spaces (AND). Quotes, `*`, `-`,
/// `:`, `^`, parentheses, `NEAR`, `AND`/`OR`/`NOT` and SQL fragments therefore end up as plain
/// words or separators: they can neither raise an FTS5 syntax error nor change the meaning.
package enum FullTextQuery {
    /// The MATCH expression of `items_fts` selecting what every term of words and phrases
    /// selects, or nil when there is none. Substring terms are left to the caller.
    package static func matchExpression(allOf terms: [TextTerm]) -> String? {
        let terms = terms.filter { !$0.isSubstring }
        guard !terms.isEmpty else { return nil }
        return terms.map(matchExpression(of:)).joined(separator: " ")
    }

    /// The MATCH expression of `items_fts` selecting what any term of words and phrases
    /// selects, or nil when there is none. Substring terms are left to the caller.
    package static func matchExpression(anyOf terms: [TextTerm]) -> String? {
        let terms = terms.filter { !$0.isSubstring }
        guard !terms.isEmpty else { return nil }
        return terms.map { "(\(matchExpression(of: $0)))" }.joined(separator: " OR ")
    }

    /// True when asking the full-text index whether one row matches `included` and not
    /// `excluded` is cheap: every term is words (not a phrase) of 2 or 3 characters, which
    /// FTS5's prefix index (`prefix = '2 3'` in Migrations/0001) holds as they are. Any other
    /// prefix makes FTS5 merge the lists of every word it starts, at each question.
    package static func isCheapToProbe(_ included: [TextTerm], _ excluded: [TextTerm]) -> Bool {
        (included + excluded).filter { !$0.isSubstring }.allSatisfy { term in
            guard case .words(let words) = term else { return false }
            return words.allSatisfy { (2...3).contains($0.unicodeScalars.count) }
        }
    }

    /// One term: `"w1"* "w2"*` (every word, each a prefix) or `"w1 w2"` (a phrase of whole
    /// words). Words are letters, digits and marks only, so none holds a quote to escape. A
    /// substring (letters and symbols, no quote either) would be the phrase of its text; the
    /// callers above leave substrings out, as `items_fts` cannot find them.
    package static func matchExpression(of term: TextTerm) -> String {
        switch term {
        case .words(let words): words.map { "\"\($0)\"*" }.joined(separator: " ")
        case .phrase(let words): "\"" + words.joined(separator: " ") + "\""
        case .substring(let text): "\"" + text + "\""
        }
    }

    /// `%text%`, the LIKE pattern of a substring term. Its text holds no `%`, `_` nor `\\`
    /// (it is letters, marks and symbols, none of them ASCII), so nothing needs escaping.
    package static func likePattern(of text: String) -> String {
        "%" + text + "%"
    }

    /// True when `text` is long enough for a trigram index (3 Unicode scalars: FTS5's
    /// trigram tokenizer counts scalars); shorter substrings are searched by reading rows.
    package static func usesTrigrams(_ text: String) -> Bool {
        text.unicodeScalars.count >= 3
    }

    /// The words of `text`, in order: its runs of letters, digits and marks, without the
    /// runs that are searched as substrings (see `terms(in:)`). Every backend searches for
    /// these words, each as a prefix.
    package static func words(in text: String) -> [String] {
        terms(in: text).words
    }

    /// The words of `text` (searched as prefixes of indexed words) and its runs (searched as
    /// substrings of the title or the notes, as stored), each in order.
    ///
    /// A run is a stretch of characters of a script written without spaces between its words
    /// (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar: `isUnspaced`), or a stretch of
    /// symbols (emoji, ©, ☃: `isSymbol`), with the marks and joiners that belong to them.
    /// The full-text index sees "日本語のドキュメント" as one word, so a word inside it is found
    /// only as a substring; it does not index symbols at all. Everything else is split into
    /// words as the `unicode61` tokenizer splits it (letters, digits and marks make words).
    ///
    /// Reads scalars, not characters (linear and cheap: a pasted text of 20,000 words is
    /// split in milliseconds): a scalar that extends a character (a mark, a variation
    /// selector, a skin tone, a zero-width joiner) stays in the run it follows.
    package static func terms(in text: String) -> (words: [String], runs: [String]) {
        let terms = terms(in: text, keeping: .max)
        return (terms.words, terms.runs)
    }

    /// `terms(in:)`, keeping only the first `limit` words and runs (words first), and how
    /// many there are in all.
    static func terms(in text: String, keeping limit: Int) -> (words: [String], runs: [String], count: Int) {
        var words: [String] = []
        var runs: [String] = []
        var count = 0
        var word = String.UnicodeScalarView()
        var run = String.UnicodeScalarView()
        var currentKind: RunKind?
        func endWord() {
            if !word.isEmpty {
                if count < limit { words.append(String(word)) }
                count += 1
                word.removeAll(keepingCapacity: true)
            }
        }
        func endRun() {
            if !run.isEmpty {
                if count < limit { runs.append(String(run)) }
                count += 1
                run.removeAll(keepingCapacity: true)
            }
            currentKind = nil
        }
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                // ASCII letters and digits make words; everything else in ASCII separates.
                endRun()
                let value = scalar.value
                if (0x61...0x7A).contains(value | 0x20) || (0x30...0x39).contains(value) {
                    word.append(scalar)
                } else {
                    endWord()
                }
                continue
            }
            if currentKind != nil, extendsCharacter(scalar) {
                run.append(scalar)
                continue
            }
            if let kind = runKind(of: scalar) {
                endWord()
                if kind != currentKind { endRun() }
                run.append(scalar)
                currentKind = kind
                continue
            }
            endRun()
            if isWordScalar(scalar) {
                word.append(scalar)
            } else {
                endWord()
            }
        }
        endWord()
        endRun()
        return (words, runs, count)
    }

    /// What a run is made of: letters of a script without spaces, or symbols. A run holds one
    /// kind ("日本🎂" is the runs 日本 and 🎂).
    private enum RunKind {
        case unspaced, symbol
    }

    private static func runKind(of scalar: Unicode.Scalar) -> RunKind? {
        if isSymbol(scalar) { return .symbol }
        if isUnspaced(scalar) { return .unspaced }
        return nil
    }

    /// A scalar that belongs to the character before it: a mark or variation selector
    /// (Grapheme_Extend), a skin tone, or the zero-width joiner of an emoji sequence.
    private static func extendsCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200D || scalar.properties.isGraphemeExtend || scalar.properties.isEmojiModifier
    }

    /// Emoji and other symbols (general category So: 🎂, ©, ☃, regional indicators), and
    /// emoji shown as pictures whatever their category. Never ASCII.
    static func isSymbol(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        return scalar.properties.generalCategory == .otherSymbol || scalar.properties.isEmojiPresentation
    }

    /// A letter, digit or mark of a script written without spaces between words: Han,
    /// Hiragana, Katakana, Bopomofo, Hangul, Thai, Lao, Khmer, Myanmar. Never ASCII.
    static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
        isWordScalar(scalar) && unspacedBlocks.contains { $0.contains(scalar.value) }
    }

    /// The Unicode blocks of `isUnspaced`.
    private static let unspacedBlocks: [ClosedRange<UInt32>] = [
        0x0E00...0x0EFF,  // Thai, Lao
        0x1000...0x109F,  // Myanmar
        0x1100...0x11FF,  // Hangul Jamo
        0x1780...0x17FF,  // Khmer
        0x2E80...0x2FDF,  // CJK and Kangxi radicals
        0x3005...0x3007,  // 々 〆 〇
        0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,  // Hangzhou numerals, kana repeat marks
        0x3040...0x31FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7FF,  // Hangul syllables, Jamo extended B
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFF66...0xFFDC,  // halfwidth Katakana and Hangul
        0x20000...0x3FFFF,  // CJK extensions B and later
    ]

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            true
        default:
            false
        }
    }
}
