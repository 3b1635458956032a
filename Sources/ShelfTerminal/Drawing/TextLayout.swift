internal import Synchronization

/// Fitting text into columns.
public enum TextLayout {
    /// `text` cut to at most `width` columns, ending in "…" when it was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let count = text.utf8.count
            return count <= width ? text : String(text.utf8.prefix(width - 1))! + "…"
        }
        var used = 0
        var index = text.startIndex
        // Where the text is cut if it does not fit: the last point with room for "…".
        var cut = text.startIndex
        while index < text.endIndex {
            used += DisplayWidth.of(text[index])
            if used > width { return text[..<cut] + "…" }
            index = text.index(after: index)
            if used <= width - 1 { cut = index }
        }
        return text
    }

    /// `text` padded with spaces (or truncated) to exactly `width` columns.
    public static func pad(_ text: String, to width: Int, alignment: Alignment = .leading) -> String {
        let fitted = truncate(text, to: width)
        let gap = max(0, width - DisplayWidth.of(fitted))
        switch alignment {
        case .leading: return fitted + String(repeating: " ", count: gap)
        case .trailing: return String(repeating: " ", count: gap) + fitted
        case .center:
            return String(repeating: " ", count: gap / 2) + fitted + String(repeating: " ", count: gap - gap / 2)
        }
    }

    /// Horizontal alignment of text in its space.
    public enum Alignment: Hashable, Sendable {
        /// Text starts at the left edge (`leading`), is centred with any odd cell on the right
        /// (`center`), or ends at the right edge (`trailing`).
        case leading, center, trailing
    }
}
