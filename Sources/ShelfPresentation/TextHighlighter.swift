internal import Foundation
internal import ShelfStore

/// Finds what a search matched in a text, for showing it: the parts of words that start with
/// a searched word, as the store's search matches them (a prefix of a word, ignoring case and
/// accents).
public enum TextHighlighter {
    /// The ranges of `text` to highlight for `terms` (words, or phrases whose words each
    /// count), in order and not overlapping: for every word of `text` that starts with one of
    /// the terms' words, the characters of that starting part. Case and accents are ignored
    /// ("ecole" marks "École"); a term with no letter or digit marks nothing.
    ///
    /// Runs of text without spaces (CJK, Thai) and of emoji, which the store finds anywhere
    /// (`FullTextQuery.terms`), are marked wherever they occur, as typed.
    public static func ranges(of terms: [String], in text: String) -> [Range<String.Index>] {
        let runs = Set(terms.flatMap { FullTextQuery.terms(in: $0).runs })
        let found = wordRanges(of: terms, in: text) + runs.flatMap { text.ranges(of: $0) }
        // In text order, without overlaps (a run may lie inside a marked word, or overlap one).
        var ranges: [Range<String.Index>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = ranges.last, range.lowerBound < last.upperBound {
                if range.upperBound > last.upperBound { ranges[ranges.count - 1] = last.lowerBound..<range.upperBound }
            } else {
                ranges.append(range)
            }
        }
        return ranges
    }

    /// The starts of words of `text` that are searched words, as `ranges(of:in:)` describes.
    private static func wordRanges(of terms: [String], in text: String) -> [Range<String.Index>] {
        let needles = Set(terms.flatMap { words(in: $0).map(fold) }.filter { !$0.isEmpty })
        guard !needles.isEmpty else { return [] }
        var ranges: [Range<String.Index>] = []
        for word in wordRanges(in: text) {
            // The longest searched word that this word starts with, measured in characters of
            // the text (folding can change lengths, so characters are added one by one).
            var folded = ""
            var end: String.Index?
            var index = word.lowerBound
            while index < word.upperBound {
                folded += fold(String(text[index]))
                index = text.index(after: index)
                if needles.contains(folded) { end = index }
                if !needles.contains(where: { $0.hasPrefix(folded) }) { break }
            }
            if let end { ranges.append(word.lowerBound..<end) }
        }
        return ranges
    }

    /// Lower case without accents, as the search compares.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The words of `text`: runs of letters, digits and marks.
    static func words(in text: String) -> [String] {
        wordRanges(in: text).map { String(text[$0]) }
    }

    private static func wordRanges(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let isWord = text[index].unicodeScalars.first.map(isWordScalar) ?? false
            if isWord, start == nil { start = index }
            if !isWord, let begun = start {
                ranges.append(begun..<index)
                start = nil
            }
            index = text.index(after: index)
        }
        if let start { ranges.append(start..<text.endIndex) }
        return ranges
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            true
        default:
            false
        }
    }
}
