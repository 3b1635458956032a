/// Makes text from data safe to draw.
///
/// - C0 controls, DEL and C1 controls become visible placeholders (the Unicode control
///   pictures, `␛` for Escape, `␊` for a line feed), so an escape sequence in data shows as
///   harmless text and can never move the cursor, retitle the window or change colours.
/// - Line and paragraph separators, which terminals draw in differing widths or not at all,
///   become visible one-column symbols: U+2028 LINE SEPARATOR and U+0085 NEXT LINE show as
///   `␤`, U+2029 PARAGRAPH SEPARATOR as `¶`.
/// - Bidirectional overrides, embeddings, isolates and marks, which would reorder what
///   follows on screen, become `�`.
/// - A run of combining marks is cut to `maximumCombiningMarks` (a letter under 500 accents
///   would otherwise be one cell of kilobytes, which terminals cap each their own way).
///
/// Each replaced scalar keeps its place, so the text's length in characters only changes
/// where marks were cut.
public enum Sanitizer {
    /// The most combining marks kept in a row after one character; more are dropped. Four
    /// covers every script's stacked diacritics (Vietnamese uses two, Tibetan stacks up to four).
    public static let maximumCombiningMarks = 4

    /// `text` with every control replaced by a visible placeholder, separators by visible
    /// symbols, direction controls by `�`, and runs of combining marks capped.
    public static func sanitize(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = String.UnicodeScalarView()
        var marks = 0
        for scalar in text.unicodeScalars {
            if isCombiningMark(scalar) {
                marks += 1
                if marks > maximumCombiningMarks { continue }
            } else {
                marks = 0
            }
            result.append(placeholder(for: scalar) ?? scalar)
        }
        return String(result)
    }

    /// The placeholder shown instead of `scalar`, or nil when it is safe as it is.
    static func placeholder(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00..<0x20: Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F: "\u{2421}"
        case 0x85, 0x2028: "\u{2424}"
        case 0x2029: "\u{B6}"
        case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: "\u{FFFD}"
        default: nil
        }
    }

    /// Nonspacing, spacing and enclosing marks (all at U+0300 or above).
    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x300 else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }
}
