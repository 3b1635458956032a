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
                    "it holds a NUL byte (its byte \(nul - value.start + 1)); remove it from the file")
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
