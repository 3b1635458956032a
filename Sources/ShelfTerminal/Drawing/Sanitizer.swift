/// Makes text from data safe to draw.
///
/// C0 controls, DEL and C1 controls become visible placeholders (the Unicode control
/// pictures, `␛` for Escape), so an escape sequence in data shows as harmless text and can
/// never move the cursor, retitle the window or change colours. Bidirectional overrides and
/// isolates, which would reorder what follows on screen, become `�`.
public enum Sanitizer {
    /// `text` with every control replaced by a visible placeholder.
    public static func sanitize(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(placeholder(for: scalar) ?? scalar)
        }
        return String(result)
    }

    /// The placeholder shown instead of `scalar`, or nil when it is safe as it is.
    static func placeholder(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00..<0x20: Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F: "\u{2421}"
        case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: "\u{FFFD}"
        default: nil
        }
    }
}
