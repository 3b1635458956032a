/// The text encodings an import reads. Everything but UTF-8 is converted to UTF-8 as it is
/// read (see `TextDecodingSource`), so memory stays flat and readers see UTF-8 only.
public enum TextEncoding: String, Sendable, CaseIterable {
    /// UTF-8, with or without a byte order mark.
    case utf8 = "utf-8"
    /// UTF-16, little-endian (what Windows and Excel's "Unicode text" write), with or without
    /// a byte order mark.
    case utf16le = "utf-16le"
    /// UTF-16, big-endian, with or without a byte order mark.
    case utf16be = "utf-16be"
    /// ISO 8859-1: every byte is the character with that code (0x80–0x9F are C1 controls).
    case latin1
    /// Windows code page 1252 (Excel's "CSV" on Western Windows): Latin-1 with 0x80–0x9F as
    /// €, smart quotes, dashes and so on; 0x81, 0x8D, 0x8F, 0x90 and 0x9D are not characters.
    case windows1252 = "windows-1252"

    /// The encoding `name` names, in any case, with or without hyphens and underscores
    /// (`utf8`, `UTF-16LE`, `iso-8859-1`, `cp1252` …), or nil.
    public init?(name: String) {
        let key = String(name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " })
        switch key {
        case "utf8": self = .utf8
        case "utf16le": self = .utf16le
        case "utf16be": self = .utf16be
        case "latin1", "iso88591", "l1": self = .latin1
        case "windows1252", "cp1252", "win1252": self = .windows1252
        default: return nil
        }
    }

    /// The name in messages, as iconv spells it: "UTF-16LE", "WINDOWS-1252".
    var displayName: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16le: "UTF-16LE"
        case .utf16be: "UTF-16BE"
        case .latin1: "Latin-1"
        case .windows1252: "Windows-1252"
        }
    }

    /// The encoding of a byte order mark at the start of `prefix`, and its length; nil for none.
    static func byteOrderMark(_ prefix: [UInt8]) -> (encoding: TextEncoding, length: Int)? {
        // FF FE 00 00 is UTF-32LE's mark, which `ByteInput.checkEncoding` refuses.
        if prefix.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return nil }
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if prefix.starts(with: [0xFF, 0xFE]) { return (.utf16le, 2) }
        if prefix.starts(with: [0xFE, 0xFF]) { return (.utf16be, 2) }
        return nil
    }

    /// The encoding of a text that starts with `prefix` when nobody named one: the one its
    /// byte order mark names; else UTF-16 when its first two characters are ASCII each with a
    /// zero byte (`t\0i\0` or `\0t\0i`), which UTF-8 text never holds (a NUL is refused), so
    /// the guess only ever reads a file that would otherwise be refused; else UTF-8.
    static func detect(_ prefix: [UInt8]) -> TextEncoding {
        if let mark = byteOrderMark(prefix) { return mark.encoding }
        guard prefix.count >= 4 else { return .utf8 }
        let ascii = { (byte: UInt8) in byte > 0 && byte < 0x80 }
        if ascii(prefix[0]), prefix[1] == 0, ascii(prefix[2]), prefix[3] == 0 { return .utf16le }
        if prefix[0] == 0, ascii(prefix[1]), prefix[2] == 0, ascii(prefix[3]) { return .utf16be }
        return .utf8
    }
}
