/// The rows an import refused, each with its reason, in a file that can be fixed and
/// imported again: CSV input gives CSV with the input's columns, delimiter and an `error`
/// column (TSV gives TSV); JSON
/// and NDJSON input give NDJSON objects with their fields and an `error` key (nested values
/// are written as null).
///
/// The file goes through `OutputSafety`: a SQLite file, and every path in `protecting` (the
/// database being imported into and the import's input), is refused before anything is read.
struct Rejects {
    private let output: ByteOutput
    private let csv: Bool
    private let delimiter: UInt8

    /// Starts the rejects file at `path`.
    /// - Throws: `TransferError` when `path` is one of `protecting` (or its `-wal`, `-shm`,
    ///   `-journal`), a SQLite file, or cannot be created.
    init(
        path: String, format: TransferFormat, delimiter: Delimiter = .comma, columns: Columns,
        protecting: [String] = []
    ) throws(TransferError) {
        let written: TransferFormat = format.isDelimited ? format : .ndjson
        if let named = TransferFormat(fileName: path), named != written, !(named == .csv && written == .tsv) {
            throw TransferError(
                "--rejects \(path): the rejects of \(format.rawValue.uppercased()) input are written as "
                    + "\(written.rawValue.uppercased()), which its name says they are not; "
                    + "name it with .\(written.rawValue) (or without an extension)")
        }
        output = try ByteOutput(path: path, protecting: protecting)
        // `bad.csv.gz` is written compressed, as an export is, so it imports back as named.
        if TransferCompression(fileName: path) == .gzip { try output.compressWithGzip() }
        csv = format.isDelimited
        self.delimiter = delimiter.byte
        if csv {
            for name in columns.names {
                Encode.csv(name, delimiter: self.delimiter, into: &output.bytes)
                output.bytes.append(self.delimiter)
            }
            Encode.ascii("error\r\n", into: &output.bytes)
        }
    }

    func write(_ record: SourceRecord, columns: Columns, reason: String) throws(TransferError) {
        if csv {
            for value in record.values {
                if let value, value.kind != .null {
                    Encode.csv(record.display(value), delimiter: delimiter, into: &output.bytes)
                }
                output.bytes.append(delimiter)
            }
            Encode.csv(reason, delimiter: delimiter, into: &output.bytes)
            Encode.ascii("\r\n", into: &output.bytes)
        } else {
            output.bytes.append(UInt8(ascii: "{"))
            for (column, value) in record.values.enumerated() {
                guard let value else { continue }
                Encode.json(columns.names[column], into: &output.bytes)
                output.bytes.append(UInt8(ascii: ":"))
                switch value.kind {
                case .text: Encode.json(record.display(value), into: &output.bytes)
                case .number, .bool: output.bytes.append(contentsOf: record.storage[value.start..<value.end])
                case .null, .nested: Encode.ascii("null", into: &output.bytes)
                }
                output.bytes.append(UInt8(ascii: ","))
            }
            Encode.ascii("\"error\":", into: &output.bytes)
            Encode.json(reason, into: &output.bytes)
            Encode.ascii("}\n", into: &output.bytes)
        }
        try output.flushIfFull()
    }

    func commit() throws(TransferError) {
        try output.commit()
    }
}
