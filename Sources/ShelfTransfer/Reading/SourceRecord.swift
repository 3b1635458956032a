internal import Foundation

/// One value of a record, as read: its kind, its bytes (in the record's storage) and where
/// it starts in the input.
struct SourceValue {
    enum Kind: UInt8 {
        /// An empty unquoted CSV field, or JSON `null`: no value.
        case null
        /// A quoted or unquoted CSV field, or a JSON string, unescaped.
        case text
        /// A JSON number, as written.
        case number
        /// JSON `true` or `false`, as written.
        case bool
        /// A JSON object or array, which no column holds.
        case nested
    }

    var kind: Kind
    var start: Int
    var end: Int
    var position: SourcePosition
}

/// The names of an input's columns: a CSV header, or the keys JSON objects have used so far.
struct Columns {
    private(set) var names: [String] = []
    private var indices: [String: Int] = [:]

    var count: Int { names.count }

    func index(of name: String) -> Int? { indices[name] }

    /// The index of `name`, added at the end when new.
    mutating func intern(_ name: String) -> Int {
        if let index = indices[name] { return index }
        names.append(name)
        indices[name] = names.count - 1
        return names.count - 1
    }
}

/// One record: a value per column index (nil when this record lacks the column), with the
/// bytes of all its values in one reused buffer.
struct SourceRecord {
    /// Where the record starts.
    var position = SourcePosition(line: 1, column: 1)
    var storage: [UInt8] = []
    var values: [SourceValue?] = []

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    func value(at column: Int) -> SourceValue? {
        column < values.count ? values[column] : nil
    }

    /// The value's bytes as a string.
    /// - Throws: a reason when they are not UTF-8 or hold a NUL byte.
    func string(_ value: SourceValue) throws(FieldProblem) -> String {
        try storage.withUnsafeBufferPointer { all throws(FieldProblem) in
            let bytes = UnsafeBufferPointer(rebasing: all[value.start..<value.end])
            if let nul = bytes.firstIndex(of: 0) {
                throw FieldProblem(
                    "it holds a NUL character (its byte \(nul + 1) in the value; in JSON a \\u0000 escape); remove it")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw FieldProblem(
                    "it is not valid UTF-8 (\(Self.firstInvalidByte(bytes))); save the file as UTF-8")
            }
            return text
        }
    }

    /// The raw bytes of a value, decoded leniently, for messages and rejects files.
    func display(_ value: SourceValue) -> String {
        String(decoding: storage[value.start..<value.end], as: UTF8.self)
    }

    private static func firstInvalidByte(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return "somewhere in it"
            case .error:
                let byte = offset < bytes.count ? bytes[offset] : 0
                return "byte 0x" + String(byte, radix: 16, uppercase: true) + " at its byte \(offset + 1)"
            }
        }
    }
}

extension SourceRecord {
    /// The record as bytes, kept with a staged row so that a problem the store finds when the
    /// import is applied names the row's place, and a rejects file gets the row as read.
    /// Layout (little-endian): line, column (8 bytes each), value count (4), per value its kind
    /// (1; 0xFF for none), start and end (4 each), line and column (8 each); then the storage.
    func encoded() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + values.count * 25 + storage.count)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(Int64(position.line))
        append(Int64(position.column))
        append(UInt32(truncatingIfNeeded: values.count))
        for value in values {
            guard let value else {
                bytes.append(0xFF)
                bytes.append(contentsOf: repeatElement(0, count: 24))
                continue
            }
            bytes.append(value.kind.rawValue)
            append(UInt32(truncatingIfNeeded: value.start))
            append(UInt32(truncatingIfNeeded: value.end))
            append(Int64(value.position.line))
            append(Int64(value.position.column))
        }
        bytes.append(contentsOf: storage)
        return Data(bytes)
    }

    /// The record `encoded()` wrote; an empty record for bytes it did not write.
    init(encoded data: Data) {
        self.init()
        let bytes = [UInt8](data)
        var offset = 0
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard offset + size <= bytes.count else { return nil }
            var value: T = 0
            for index in 0..<size { value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }
        guard let line = read(Int64.self), let column = read(Int64.self), let count = read(UInt32.self) else {
            return
        }
        position = SourcePosition(line: Int(line), column: Int(column))
        for _ in 0..<count {
            guard offset < bytes.count else { return }
            let kind = bytes[offset]
            offset += 1
            guard let start = read(UInt32.self), let end = read(UInt32.self), let line = read(Int64.self),
                let column = read(Int64.self)
            else { return }
            values.append(
                SourceValue.Kind(rawValue: kind).map {
                    SourceValue(
                        kind: $0, start: Int(start), end: Int(end),
                        position: SourcePosition(line: Int(line), column: Int(column)))
                })
        }
        storage = Array(bytes[offset...])
        let size = storage.count
        values = values.map { value in value.flatMap { $0.start <= $0.end && $0.end <= size ? $0 : nil } }
    }
}

/// Why a value cannot be used; the importer adds the file, position, field and value.
struct FieldProblem: Error {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

/// Where records come from: a CSV, JSON or NDJSON reader.
protocol RecordReader {
    /// The input being read.
    var input: ByteInput { get }
    /// The columns seen so far (a JSON reader adds keys as it meets them).
    var columns: Columns { get }
    /// Reads the next record into `record`; false at the end of the input.
    /// - Throws: `TransferError` when the input is malformed; the rest cannot be read.
    mutating func next(into record: inout SourceRecord) throws(TransferError) -> Bool
}
