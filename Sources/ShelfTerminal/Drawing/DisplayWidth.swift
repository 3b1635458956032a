/// How many terminal columns text takes: 2 for wide characters (CJK, emoji), 0 for
/// combining marks and format characters, 1 otherwise.
///
/// Counted per grapheme (`Character`), so an emoji sequence joined with ZWJ or a letter
/// with combining accents counts once.
public enum DisplayWidth {
    /// The columns `character` takes.
    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii < 0x20 || ascii == 0x7F ? 0 : 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1, first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }
        var width = of(first)
        if width == 0 { return 0 }
        for scalar in scalars.dropFirst() {
            // An emoji presentation selector turns a text-style symbol into a wide emoji.
            if scalar.value == 0xFE0F, first.properties.isEmoji { width = 2 }
            if scalar.properties.isEmojiPresentation || isRegionalIndicator(scalar) { width = 2 }
        }
        return width
    }

    /// The columns `text` takes.
    public static func of(_ text: some StringProtocol) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The columns one scalar takes on its own.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and finals
        if scalar.properties.isEmojiPresentation || isWide(value) { return 2 }
        return 1
    }

    // MARK: - Certainty

    /// Whether every terminal draws `character` in exactly `of(character)` columns.
    ///
    /// Terminals count columns with their own width tables, of differing Unicode versions and
    /// with differing support for grapheme clusters, so the renderer positions the cursor
    /// absolutely after any character whose width is not certain. The rule, deliberately
    /// narrow:
    /// - certain: one Unicode scalar that is printable ASCII; or a letter, digit, punctuation
    ///   mark, symbol or space assigned by Unicode 6.0 (2010, older than any terminal's table
    ///   in use), not an emoji (`isEmoji`, which any later selector could turn wide), that is
    ///   either below the CJK blocks (U+2E80) and narrow — Latin, Greek, Cyrillic, Hebrew,
    ///   Arabic, Indic letters, box drawing, arrows, U+FFFD — or a core East Asian wide
    ///   character: Hangul, kana, CJK ideographs, fullwidth forms (width 2);
    /// - uncertain: everything else — any grapheme of more than one scalar (combining
    ///   marks, emoji sequences joined with ZWJ, variation selectors, flags), emoji, characters
    ///   newer than Unicode 6.0, private use, and wide-by-table-only symbols such as U+2329.
    ///
    /// East Asian Ambiguous characters (box drawing, `·`, `…`) count as narrow, as the browser's
    /// own frames assume: a terminal set to draw them wide garbles every frame alike.
    public static func isCertain(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F }
        let scalars = character.unicodeScalars
        guard let first = scalars.first, scalars.count == 1 else { return false }
        return isCertain(first)
    }

    /// Whether every terminal draws the lone `scalar` in `of(scalar)` columns (see
    /// `isCertain(_: Character)`).
    static func isCertain(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 }
        if value < 0xA0 { return false }
        // Latin-1, Latin Extended-A and -B, IPA, spacing modifiers: narrow everywhere, except
        // the soft hyphen (drawn 0 or 1) and the emoji © and ®.
        if value <= 0x2FF { return value != 0xAD && value != 0xA9 && value != 0xAE }
        // What frames and rows draw most: dashes, quotes and "…", control pictures, box drawing
        // and block elements (none an emoji), without looking up properties.
        switch value {
        case 0x2010...0x2027, 0x2400...0x2426, 0x2500...0x259F, 0xFFFD: return true
        default: break
        }
        let properties = scalar.properties
        guard let age = properties.age, age.major < 6 || (age.major == 6 && age.minor == 0) else { return false }
        if properties.isEmoji { return false }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .connectorPunctuation, .dashPunctuation, .openPunctuation,
            .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation, .mathSymbol,
            .currencySymbol, .modifierSymbol, .otherSymbol, .spaceSeparator:
            break
        default:
            return false
        }
        if isSurelyWide(value) { return true }
        if isWide(value) { return false }
        if (0x1160...0x11FF).contains(value) { return false }  // Hangul medial vowels and finals
        return value < 0x2E80 || (0xFF61...0xFFDC).contains(value)  // halfwidth forms
    }

    /// The East Asian wide blocks every terminal draws wide: Hangul, kana, CJK ideographs
    /// and their radicals and punctuation, Yi, fullwidth forms.
    private static func isSurelyWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x2FFFD,
            0x30000...0x3FFFD:
            true
        default: false
        }
    }

    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// East Asian Wide and Fullwidth ranges (Unicode 15 EastAsianWidth.txt, W and F).
    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        for range in wideRanges where range.contains(value) { return true }
        return false
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
        0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
        0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
        0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
        0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202,
        0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F320,
        0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
        0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440, 0x1F442...0x1F4FC,
        0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A, 0x1F595...0x1F596,
        0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2,
        0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB,
        0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
