/// The file formats of imports and exports.
public enum TransferFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV with a header row, CRLF line ends.
    case csv
    /// CSV with tabs between fields (quoting as CSV's, as Excel and Python's `excel-tab` write it).
    case tsv
    /// One array of objects.
    case json
    /// One object per line (JSON Lines).
    case ndjson

    /// The most columns an input may have: fields of a CSV row, distinct keys of JSON
    /// objects. Shelf's tables have about ten fields; the limit bounds the work per record,
    /// which grows with the number of columns (a JSON record holds a slot per key seen so far).
    static let maximumColumns = 1_000

    /// The format a file name's extension names (`.csv`, `.tsv`, `.json`, `.ndjson` or `.jsonl`), or nil.
    /// A `.gz` after it is skipped: `items.csv.gz` is CSV (compressed).
    public init?(fileName: String) {
        let lowered = TransferCompression.innerName(fileName).lowercased()
        if lowered.hasSuffix(".csv") {
            self = .csv
        } else if lowered.hasSuffix(".tsv") {
            self = .tsv
        } else if lowered.hasSuffix(".json") {
            self = .json
        } else if lowered.hasSuffix(".ndjson") || lowered.hasSuffix(".jsonl") {
            self = .ndjson
        } else {
            return nil
        }
    }

    /// The format the first bytes of an input suggest: `[` is JSON, `{` NDJSON, a first line
    /// with tabs and no comma TSV, anything else CSV. A byte order mark and white space are skipped.
    static func sniff(_ prefix: [UInt8]) -> TransferFormat {
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        switch bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "{"): return .ndjson
        default:
            // As CSV, such a header would be one column with tabs in its name: never valid.
            let firstLine = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
            return firstLine.contains(0x09) && !firstLine.contains(0x2C) ? .tsv : .csv
        }
    }
}
