/// Reads CSV as RFC 4180 describes it, streaming: a header row, then records of fields
/// separated by commas (or another `Delimiter`: a tab for TSV); a field may be quoted, with
/// `""` for a quote and line breaks and delimiters inside.
///
/// Lines end with CRLF or LF; a UTF-8 byte order mark is skipped; blank lines are skipped.
/// The input is UTF-8: a NUL byte, invalid UTF-8, or a UTF-16 or UTF-32 file is a
/// `TransferError` naming the line, column and byte offset (see `ByteInput`).
/// An empty unquoted field is no value (`null`), while `""` is an empty text: this is how an
/// export tells missing notes from empty ones. A quote inside an unquoted field is text
/// (`12" ruler`), as in most readers. Malformed input (an unclosed quote, text after a
/// closing quote, a field over `maximumFieldBytes`, a row of more than
/// `TransferFormat.maximumColumns` fields) is a `TransferError` with the line and column; a wrong number of fields is reported per record by `fieldCountProblem`.
struct CSVReader: RecordReader {
    let input: ByteInput
    /// The byte between fields.
    let delimiter: Delimiter
    private(set) var columns = Columns()
    /// Where each header name is.
    private(set) var headerPositions: [SourcePosition] = []
    /// A field larger than this is refused: it is most likely a quote never closed.
    static let maximumFieldBytes = 1 << 26

    /// Reads the header row.
    /// - Throws: `TransferError` for an empty input or a malformed header.
    init(input: ByteInput, delimiter: Delimiter = .comma) throws(TransferError) {
        self.input = input
        self.delimiter = delimiter
        try input.checkEncoding()
        var header = SourceRecord()
        guard try readFields(into: &header) else {
            throw TransferError(
                file: input.name, position: nil,
                reason: "the file is empty; a CSV import needs a header row naming its columns (e.g. title,notes)")
        }
        for case let value? in header.values {
            let name: String
            do {
                name = try header.string(value).trimmingSpaces
            } catch {
                throw TransferError(file: input.name, position: value.position, reason: "the header: \(error.reason)")
            }
            guard !name.isEmpty else {
                throw TransferError(
                    file: input.name, position: value.position,
                    reason: "a column of the header has no name; name every column")
            }
            guard columns.index(of: name) == nil else {
                throw TransferError(
                    file: input.name, position: value.position, field: name,
                    reason: "the header names this column twice; rename or remove one")
            }
            _ = columns.intern(name)
            headerPositions.append(value.position)
        }
    }

    mutating func next(into record: inout SourceRecord) throws(TransferError) -> Bool {
        try readFields(into: &record)
    }

    /// The problem with a record whose number of fields is not the header's, or nil. The
    /// record was read whole, so the reader can go on with the next one.
    func fieldCountProblem(_ record: SourceRecord) -> TransferError? {
        guard record.values.count != columns.count else { return nil }
        return TransferError(
            file: input.name, position: record.position,
            reason: "this row has \(record.values.count) field\(record.values.count == 1 ? "" : "s") but "
                + "the header has \(columns.count) (\(TransferError.list(columns.names))); "
                + "check for a missing or extra \(delimiter), or a \(delimiter) that should be inside quotes"
                + (delimiter == .comma ? "" : " (the file is read with a \(delimiter) between fields)"))
    }

    /// Reads one record's fields; false at the end of the input.
    private func readFields(into record: inout SourceRecord) throws(TransferError) -> Bool {
        record.removeAll()
        // Blank lines between records carry nothing.
        while let byte = try input.peek(), byte == 0x0A || byte == 0x0D {
            _ = try input.next()
        }
        guard try input.peek() != nil else { return false }
        record.position = input.position
        while true {
            let position = input.position
            let start = record.storage.count
            let quoted = try input.peek() == 0x22
            let ended =
                quoted
                ? try readQuoted(into: &record, at: position, start: start)
                : try readUnquoted(into: &record, start: start)
            let kind: SourceValue.Kind = quoted || record.storage.count > start ? .text : .null
            record.values.append(SourceValue(kind: kind, start: start, end: record.storage.count, position: position))
            if ended { return true }
            if record.values.count == TransferFormat.maximumColumns {
                throw TransferError(
                    file: input.name, position: record.position,
                    reason: "this row has more than \(TransferFormat.maximumColumns) fields; Shelf's tables have a "
                        + "dozen columns: check that this file has a \(delimiter) between fields (else name its "
                        + "delimiter with --delimiter)")
            }
        }
    }

    /// Reads an unquoted field and its delimiter; true when the record ended.
    private func readUnquoted(into record: inout SourceRecord, start: Int) throws(TransferError) -> Bool {
        while let byte = try input.peek() {
            if let ended = try consumeDelimiter(byte) { return ended }
            _ = try input.next()
            try append(byte, to: &record, start: start)
        }
        return true
    }

    /// Consumes a field's end when `byte` is one: false after the delimiter (a field follows),
    /// true after a line end (CRLF, LF or a lone CR); nil, consuming nothing, for any other byte.
    @inline(__always)
    private func consumeDelimiter(_ byte: UInt8) throws(TransferError) -> Bool? {
        if byte == delimiter.byte {
            _ = try input.next()
            return false
        }
        switch byte {
        case 0x0A:
            _ = try input.next()
            return true
        case 0x0D:
            _ = try input.next()
            if try input.peek() == 0x0A { _ = try input.next() }
            return true
        default:
            return nil
        }
    }

    /// Reads a quoted field and its delimiter; true when the record ended.
    private func readQuoted(
        into record: inout SourceRecord, at position: SourcePosition, start: Int
    ) throws(TransferError) -> Bool {
        _ = try input.next()
        while true {
            guard let byte = try input.next() else {
                throw TransferError(
                    file: input.name, position: position,
                    reason: "the quoted field starting here is never closed (unbalanced quote); "
                        + "close it, or double a quote meant as text (\"\")")
            }
            if byte == 0x22 {
                guard try input.peek() == 0x22 else { break }
                _ = try input.next()
            }
            try append(byte, to: &record, start: start)
        }
        guard let byte = try input.peek() else { return true }
        if let ended = try consumeDelimiter(byte) { return ended }
        throw TransferError(
            file: input.name, position: input.position,
            reason: "text after the closing quote of a quoted field; a field is either all inside "
                + "quotes or not quoted, and a quote inside quotes is written twice (\"\")")
    }

    @inline(__always)
    private func append(_ byte: UInt8, to record: inout SourceRecord, start: Int) throws(TransferError) {
        record.storage.append(byte)
        if record.storage.count - start > Self.maximumFieldBytes {
            throw TransferError(
                file: input.name, position: input.position,
                reason:
                    "a field is longer than \(Self.maximumFieldBytes / 1024) KiB (the most shelf reads); if it is quoted, "
                    + "most likely its quote is never closed before this point")
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(scalars[first...last])
    }
}
