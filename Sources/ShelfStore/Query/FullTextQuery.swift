/// Turns the words and phrases of text typed by a person into safe FTS5 MATCH expressions.
///
/// The text is split into words the way the `unicode61` tokenizer splits them (letters,
/// digits and marks make words; everything else separates them). Each word becomes a quoted
/// prefix phrase, `"word"*`, and the phrases are joined with spaces (AND). Quotes, `*`, `-`,
/// `:`, `^`, parentheses, `NEAR`, `AND`/`OR`/`NOT` and SQL fragments therefore end up as plain
/// words or separators: they can neither raise an FTS5 syntax error nor change the meaning.
package enum FullTextQuery {
    /// The MATCH expression selecting what every term selects, or nil when there is none.
    static func matchExpression(allOf terms: [TextTerm]) -> String? {
        guard !terms.isEmpty else { return nil }
        return terms.map(matchExpression(of:)).joined(separator: " ")
    }

    /// The MATCH expression selecting what any term selects, or nil when there is none.
    static func matchExpression(anyOf terms: [TextTerm]) -> String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { "(\(matchExpression(of: $0)))" }.joined(separator: " OR ")
    }

    /// True when asking the full-text index whether one row matches `included` and not
    /// `excluded` is cheap: every term is words (not a phrase) of 2 or 3 characters, which
    /// FTS5's prefix index (`prefix = '2 3'` in Migrations/0001) holds as they are. Any other
    /// prefix makes FTS5 merge the lists of every word it starts, at each question.
    static func isCheapToProbe(_ included: [TextTerm], _ excluded: [TextTerm]) -> Bool {
        (included + excluded).allSatisfy { term in
            guard case .words(let words) = term else { return false }
            return words.allSatisfy { (2...3).contains($0.unicodeScalars.count) }
        }
    }

    /// One term: `"w1"* "w2"*` (every word, each a prefix) or `"w1 w2"` (a phrase of whole
    /// words). Words are letters, digits and marks only, so none holds a quote to escape.
    static func matchExpression(of term: TextTerm) -> String {
        switch term {
        case .words(let words): words.map { "\"\($0)\"*" }.joined(separator: " ")
        case .phrase(let words): "\"" + words.joined(separator: " ") + "\""
        }
    }

    /// The words of `text`, in order: its runs of letters, digits and marks. Every backend
    /// searches for these words, each as a prefix.
    package static func words(in text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

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
