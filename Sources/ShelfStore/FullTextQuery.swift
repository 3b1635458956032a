/// Turns text typed by a person into a safe FTS5 MATCH expression.
///
/// The text is split into words the way the `unicode61` tokenizer splits them (letters,
/// digits and marks make words; everything else separates them). Each word becomes a quoted
/// prefix phrase, `"word"*`, and the phrases are joined with spaces (AND). Quotes, `*`, `-`,
/// `:`, `^`, parentheses, `NEAR`, `AND`/`OR`/`NOT` and SQL fragments therefore end up as plain
/// words or separators: they can neither raise an FTS5 syntax error nor change the meaning.
package enum FullTextQuery {
    /// The MATCH expression for `text`, or nil when it holds no word at all.
    static func matchExpression(for text: String) -> String? {
        let words = words(in: text)
        guard !words.isEmpty else { return nil }
        // Words are letters, digits and marks only, so none holds a quote to escape.
        return words.map { "\"\($0)\"*" }.joined(separator: " ")
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
