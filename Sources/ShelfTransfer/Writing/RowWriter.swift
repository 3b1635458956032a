internal import Foundation
internal import ShelfStore
internal import Synchronization

/// Frames rows for a format: the CSV (or TSV) header and CRLF line ends, the JSON array's
/// brackets and commas, or NDJSON's newlines.
struct RowWriter {
    let format: TransferFormat
    let output: ByteOutput
    /// The byte between CSV fields (a tab for TSV).
    let delimiter: UInt8
    private(set) var count = 0

    init(format: TransferFormat, output: ByteOutput, delimiter: Delimiter? = nil) {
        self.format = format
        self.output = output
        self.delimiter = (delimiter ?? format.defaultDelimiter ?? .comma).byte
    }

    /// Text cells that a spreadsheet would take for a formula get a `'` in front (CSV only).
    var excelSafe = false

    /// Starts the output: for CSV and TSV the header of `columns`, in order.
    func begin(columns: [StaticString]) throws(TransferError) {
        switch format {
        case .csv, .tsv:
            for (index, name) in columns.enumerated() {
                if index > 0 { output.bytes.append(delimiter) }
                // Quoted when it holds the delimiter (`created_at` with `--delimiter _`).
                name.withUTF8Buffer { Encode.csv($0, delimiter: delimiter, into: &output.bytes) }
            }
            Encode.ascii("\r\n", into: &output.bytes)
        case .json: output.bytes.append(UInt8(ascii: "["))
        case .ndjson: break
        }
    }

    /// Writes one row, whose fields `body` appends in column order.
    ///
    /// - Parameter row: names the row ("item 42") for the error below.
    /// - Throws: `TransferError` when a text field holds a NUL character (a row stored by
    ///   another program, or before the database refused them): no format shelf imports can
    ///   carry it, so the export stops rather than write what cannot be read back. The same
    ///   for a time outside the years 0000 to 9999, which an import refuses.
    @inline(__always)
    mutating func row(_ row: @autoclosure () -> String, _ body: (inout RowFields) -> Void) throws(TransferError) {
        if format == .json { Encode.ascii(count == 0 ? "\n" : ",\n", into: &output.bytes) }
        var fields = RowFields(json: !format.isDelimited, delimiter: delimiter)
        fields.excelSafe = excelSafe
        // The buffer moves into the row and back: one exclusive access per row, not per field.
        swap(&fields.bytes, &output.bytes)
        body(&fields)
        fields.close()
        swap(&fields.bytes, &output.bytes)
        if let (field, milliseconds) = fields.timeOutOfRange {
            throw TransferError(
                "\(row()) has the \(field) \(Timestamp.string(milliseconds)) (\(milliseconds) ms since 1970, "
                    + "stored by another program), outside the years 0000 to 9999 that an import reads back; "
                    + "set it to a time in those years in that row, then export again")
        }
        if let field = fields.nulField {
            throw TransferError(
                "\(row()) holds a NUL character in its \(field) (stored by another program, or before shelf "
                    + "refused them), which no format shelf imports can carry; remove it from that row, then "
                    + "export again")
        }
        switch format {
        case .csv, .tsv: Encode.ascii("\r\n", into: &output.bytes)
        case .ndjson: output.bytes.append(0x0A)
        case .json: break
        }
        count += 1
        if output.countsRows { output.rowEnds.append(output.bytes.count) }
        try output.flushIfFull()
    }

    /// Closes the array, flushes and commits; returns the number of rows.
    func end() throws(TransferError) -> Int {
        if format == .json { Encode.ascii(count == 0 ? "]\n" : "\n]\n", into: &output.bytes) }
        try output.commit()
        return count
    }
}

/// The fields of one row, appended in column order: `1,Ann,…` for CSV, or
/// `{"id":1,"name":"Ann",…}` for JSON and NDJSON. One list of calls serves every format, so
/// the columns cannot drift apart between them.
struct RowFields {
    let json: Bool
    let delimiter: UInt8
    /// See `RowWriter.excelSafe`.
    var excelSafe = false
    var bytes: [UInt8] = []
    /// The first text field that held a NUL character, if any (see `RowWriter.row`).
    var nulField: StaticString?
    /// The first time outside the years an import reads back, with its value, if any.
    var timeOutOfRange: (field: StaticString, milliseconds: Int64)?
    private var first = true

    init(json: Bool, delimiter: UInt8 = 0x2C) {
        self.json = json
        self.delimiter = delimiter
    }

    @inline(__always)
    mutating func integer(_ name: StaticString, _ value: Int64) {
        separate(name)
        Encode.integer(value, into: &bytes)
    }

    /// Text, or no value: an empty CSV field or JSON `null`.
    @inline(__always)
    mutating func text(_ name: StaticString, _ value: String?) {
        separate(name)
        if nulField == nil, let value, value.utf8.contains(0) { nulField = name }
        if json {
            Encode.json(value, into: &bytes)
        } else if excelSafe, let value, SpreadsheetSafety.needsPrefix(value) {
            Encode.csv("'" + value, delimiter: delimiter, into: &bytes)
        } else {
            Encode.csv(value, delimiter: delimiter, into: &bytes)
        }
    }

    /// `text(_:_:)` for UTF-8 bytes (an export's row, read in place).
    @inline(__always)
    mutating func text(_ name: StaticString, bytes value: UnsafeBufferPointer<UInt8>?) {
        separate(name)
        guard let value else {
            if json { Encode.ascii("null", into: &bytes) }
            return
        }
        if nulField == nil, let base = value.baseAddress, memchr(base, 0, value.count) != nil { nulField = name }
        if json {
            Encode.json(value, into: &bytes)
        } else if excelSafe, SpreadsheetSafety.needsPrefix(value) {
            let prefixed = [UInt8(ascii: "'")] + value
            prefixed.withUnsafeBufferPointer { Encode.csv($0, delimiter: delimiter, into: &bytes) }
        } else {
            Encode.csv(value, delimiter: delimiter, into: &bytes)
        }
    }

    /// Milliseconds since 1970 as UTC ISO 8601.
    @inline(__always)
    mutating func time(_ name: StaticString, _ milliseconds: Int64) {
        separate(name)
        if timeOutOfRange == nil, !Timestamp.range.contains(milliseconds) { timeOutOfRange = (name, milliseconds) }
        Timestamp.format(milliseconds, into: &bytes, quoted: json)
    }

    /// Ends a JSON object.
    mutating func close() {
        guard json else { return }
        if first { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
    }

    @inline(__always)
    private mutating func separate(_ name: StaticString) {
        if json {
            // `{"name":` or `,"name":`, made on the stack and appended at once.
            let count = name.utf8CodeUnitCount
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 4) { key in
                key[0] = first ? UInt8(ascii: "{") : UInt8(ascii: ",")
                key[1] = 0x22
                for index in 0..<count { key[index + 2] = name.utf8Start[index] }
                key[count + 2] = 0x22
                key[count + 3] = UInt8(ascii: ":")
                bytes.append(contentsOf: key)
            }
        } else if !first {
            bytes.append(delimiter)
        }
        first = false
    }
}
