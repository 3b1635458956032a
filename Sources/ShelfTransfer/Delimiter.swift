/// The one byte between the fields of a CSV or TSV row: a comma for CSV, a tab for TSV, or
/// another one an import or export names (`;` as spreadsheets in much of Europe write, `|`).
///
/// Quoting is RFC 4180's with the delimiter in the comma's place, as Excel's and Python's
/// `excel-tab` dialects do: a field holding the delimiter, a quote, a line break, or leading
/// or trailing white space is written in quotes, a quote inside doubled.
public struct Delimiter: Sendable, Hashable, CustomStringConvertible {
    /// The byte: ASCII, never a quote, CR, LF, NUL, letter or digit.
    public let byte: UInt8

    /// A comma, CSV's.
    public static let comma = Delimiter(checked: 0x2C)
    /// A tab, TSV's.
    public static let tab = Delimiter(checked: 0x09)

    private init(checked byte: UInt8) {
        self.byte = byte
    }

    /// The delimiter `text` names: one ASCII character (`;`, `|`, a tab), or `\t` or `tab`
    /// (also `comma`, `semicolon`, `pipe`, `space`) spelled out.
    /// - Throws: `TransferError` for more than one byte, or a character that cannot separate
    ///   fields: a quote (it quotes them), CR or LF (they end rows), NUL, a letter or a digit
    ///   (they are in the values written unquoted).
    public init(_ text: String) throws(TransferError) {
        let named: [String: UInt8] = [
            "\\t": 0x09, "tab": 0x09, "comma": 0x2C, "semicolon": 0x3B, "pipe": 0x7C, "space": 0x20,
        ]
        let shown = TransferError.escaped(text, limit: 20)
        if let byte = named[text.lowercased()] {
            self.byte = byte
            return
        }
        let bytes = Array(text.utf8)
        guard bytes.count == 1, let byte = bytes.first else {
            throw TransferError(
                "--delimiter \(shown): a delimiter is one byte (one ASCII character such as ; or |, or tab); "
                    + (bytes.isEmpty ? "name one" : "\(bytes.count) bytes cannot separate fields"))
        }
        switch byte {
        case 0x22:
            throw TransferError(
                "--delimiter '\"': a quote cannot separate fields, it quotes them; pick another, such as ; or |")
        case 0x0A, 0x0D:
            throw TransferError(
                "--delimiter: a line break cannot separate fields, it ends rows; pick another, such as ; or tab")
        case 0x09, 0x20...0x7E:
            let scalar = Unicode.Scalar(byte)
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw TransferError(
                    "--delimiter \(shown): letters and digits are in the values Shelf writes unquoted (IDs, times); "
                        + "pick a punctuation character such as ; or |, or tab")
            }
            self.byte = byte
        default:
            throw TransferError("--delimiter \(shown): a delimiter is a printable ASCII character or tab; pick another")
        }
    }

    /// Refuses a delimiter an export cannot write unambiguously: `-`, `:`, `.` and `+` are in
    /// the times and negative numbers it writes unquoted.
    func checkForExport() throws(TransferError) {
        guard [UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "+")].contains(byte) else {
            return
        }
        throw TransferError(
            "--delimiter '\(Character(Unicode.Scalar(byte)))': an export writes times (2024-05-01T09:30:00.000Z) "
                + "and numbers unquoted, and they hold this character; pick another, such as ; or |, or tab")
    }

    /// The delimiter the header line at the start of `prefix` shows when it is not `expected`:
    /// in a first line without `expected`, the first of a comma, a tab, `;` and `|` it holds;
    /// else nil. Read with `expected`, such a header would be one column with that character
    /// in its name, which no field has: the guess only ever reads a file that would otherwise
    /// be refused.
    static func sniff(_ prefix: [UInt8], expected: Delimiter) -> Delimiter? {
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let firstLine = bytes.drop { $0 == 0x0A || $0 == 0x0D }.prefix { $0 != 0x0A && $0 != 0x0D }
        guard !firstLine.contains(expected.byte) else { return nil }
        let candidates = [Delimiter.comma, .tab, Delimiter(checked: 0x3B), Delimiter(checked: 0x7C)]
        return candidates.first { firstLine.contains($0.byte) }
    }

    /// How to name it on the command line: `tab`, or the character in single quotes.
    var argument: String { byte == 0x09 ? "tab" : "'\(Character(Unicode.Scalar(byte)))'" }

    /// "comma", "tab", "space", or the character in quotes, for messages.
    public var description: String {
        switch byte {
        case 0x2C: "comma"
        case 0x09: "tab"
        case 0x20: "space"
        default: "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    /// The format and delimiter of an input or output: `named` is the format the user named
    /// (or nil), `guessed` the one the file's name says (or nil), `delimiter` the one named
    /// (or nil). A named delimiter makes the format delimited (TSV for a tab, else CSV);
    /// otherwise CSV's is a comma and TSV's a tab. The format is nil when neither is known
    /// (the caller looks at the first bytes); the delimiter is nil for JSON.
    /// - Throws: `TransferError` for a delimiter with a JSON format, or with `--format tsv`
    ///   when it is not a tab.
    public static func resolve(
        named: TransferFormat?, guessed: TransferFormat?, delimiter: Delimiter?
    ) throws(TransferError) -> (format: TransferFormat?, delimiter: Delimiter?) {
        guard let delimiter else {
            let format = named ?? guessed
            return (format, format?.defaultDelimiter)
        }
        switch named ?? guessed {
        case .json?, .ndjson?:
            let format = named ?? guessed
            throw TransferError(
                "--delimiter applies to CSV and TSV, and this is \(format?.rawValue.uppercased() ?? "JSON")"
                    + (named == nil ? " by its file name; pass --format csv if it is CSV" : ""))
        case .tsv? where named == .tsv && delimiter != .tab:
            throw TransferError(
                "--delimiter \(delimiter) with --format tsv: TSV is tab-separated; for another delimiter pass --format csv"
            )
        default:
            return (delimiter == .tab ? .tsv : .csv, delimiter)
        }
    }
}

extension TransferFormat {
    /// CSV or TSV: rows of fields between delimiters.
    var isDelimited: Bool { self == .csv || self == .tsv }

    /// The delimiter of CSV (a comma) and TSV (a tab); nil for JSON.
    var defaultDelimiter: Delimiter? {
        switch self {
        case .csv: .comma
        case .tsv: .tab
        case .json, .ndjson: nil
        }
    }
}

extension ExportOptions {
    /// The delimiter to write when one is named, checked; nil for the format's own.
    /// - Throws: `TransferError` for a delimiter with JSON, another than a tab with TSV, or
    ///   one `checkForExport()` refuses.
    func checkedDelimiter() throws(TransferError) -> Delimiter? {
        guard let delimiter else { return nil }
        guard format.isDelimited else {
            throw TransferError("--delimiter applies to CSV and TSV, not \(format.rawValue.uppercased())")
        }
        if format == .tsv, delimiter != .tab {
            throw TransferError(
                "--delimiter \(delimiter) with TSV: TSV is tab-separated; for another delimiter write CSV (--format csv)"
            )
        }
        try delimiter.checkForExport()
        return delimiter
    }
}
