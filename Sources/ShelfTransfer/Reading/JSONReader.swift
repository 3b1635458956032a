/// Reads JSON records, streaming: a top-level array of objects (`[{…}, {…}]`), or NDJSON
/// (one object per line). Only the current object is in memory.
///
/// Values are checked as RFC 8259 says: strings with their escapes (surrogate pairs joined),
/// numbers by the grammar, the three literals. Nested objects and arrays are read fully
/// (without recursion) and reported as `.nested`; nesting deeper than `maximumDepth` levels,
/// counting the surrounding array and object, is an error at the bracket that goes past it
/// (so memory stays bounded however many brackets a file opens). Any error is a
/// `TransferError` with the line and column; the input is UTF-8 (see `ByteInput`).
///
/// NDJSON is line-delimited: an object must close on the line it opens, so an object cut
/// short is an error on its own line, not on the next one. At most
/// `TransferFormat.maximumColumns` distinct keys.
struct JSONReader: RecordReader {
    let input: ByteInput
    /// NDJSON: one object per line, no surrounding array.
    let lines: Bool
    private(set) var columns = Columns()
    private var started = false
    private var finished = false
    private var scratch: [UInt8] = []
    /// Where the object being read starts, for NDJSON's "this line ends inside an object".
    private var objectStart = SourcePosition(line: 1, column: 1)
    /// A string longer than this is refused.
    static let maximumStringBytes = 1 << 26
    /// The deepest nesting read: arrays and objects inside one another, the file's own array
    /// and each record's object included.
    static let maximumDepth = 64
    /// Containers open around the value being read: the array and the object of a record
    /// (NDJSON: the object), none for `readDocument`.
    private var outerDepth: Int { document ? 0 : lines ? 1 : 2 }
    private var document = false

    init(input: ByteInput, lines: Bool) {
        self.input = input
        self.lines = lines
    }

    mutating func next(into record: inout SourceRecord) throws(TransferError) -> Bool {
        record.removeAll()
        if finished { return false }
        if !started {
            started = true
            try input.checkEncoding()
            if !lines {
                try skipWhitespace()
                guard try input.peek() == UInt8(ascii: "[") else {
                    throw problem(
                        try input.peek() == nil
                            ? "the file is empty; a JSON import is an array of objects: [{\"title\": \"…\"}]"
                            : "a JSON import is one array of objects ([{…}, {…}]), or NDJSON with one object "
                                + "per line; this does not start with [")
                }
                _ = try input.next()
                try skipWhitespace()
                if try input.peek() == UInt8(ascii: "]") {
                    _ = try input.next()
                    try expectEnd()
                    return false
                }
                return try readObject(into: &record)
            }
        }
        if lines {
            while let byte = try input.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A {
                _ = try input.next()
            }
            guard try input.peek() != nil else {
                finished = true
                return false
            }
            guard try input.peek() == UInt8(ascii: "{") else {
                throw problem("each line of NDJSON is one object ({…}); this line is not")
            }
            try readObject(into: &record)
            while let byte = try input.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0D {
                _ = try input.next()
            }
            guard let byte = try input.peek(), byte != 0x0A else { return true }
            throw problem("text after the object on this line; NDJSON has one object per line")
        }
        try skipWhitespace()
        switch try input.next() {
        case UInt8(ascii: ","):
            try skipWhitespace()
            guard try input.peek() == UInt8(ascii: "{") else {
                throw problem(
                    try input.peek() == UInt8(ascii: "]")
                        ? "a comma before the closing ]; remove it"
                        : "each element of the array must be an object ({…})")
            }
            return try readObject(into: &record)
        case UInt8(ascii: "]"):
            try expectEnd()
            return false
        case nil:
            throw problem("the file ends inside the array; it is cut short, or the closing ] is missing")
        default:
            throw problem("expected a comma or ] after an object", atLast: true)
        }
    }

    /// Reads a whole document holding any JSON value, and nothing after it. For conformance
    /// tests of the reader.
    mutating func readDocument() throws(TransferError) {
        document = true
        try input.checkEncoding()
        try skipWhitespace()
        var record = SourceRecord()
        _ = try readValue(into: &record)
        try expectEnd()
    }

    // MARK: Objects and values

    @discardableResult
    private mutating func readObject(into record: inout SourceRecord) throws(TransferError) -> Bool {
        record.position = input.position
        objectStart = record.position
        _ = try input.next()
        try skipWhitespace()
        if try input.peek() == UInt8(ascii: "}") {
            _ = try input.next()
            return true
        }
        while true {
            guard try input.peek() == UInt8(ascii: "\"") else { throw problem("expected a key in quotes") }
            let keyPosition = input.position
            let keyStart = record.storage.count
            try readString(into: &record.storage)
            let keyBytes = record.storage[keyStart...]
            // ByteInput lets only UTF-8 through and escapes decode to scalars.
            let key = String(decoding: keyBytes, as: UTF8.self)
            record.storage.removeSubrange(keyStart...)
            if columns.count >= TransferFormat.maximumColumns, columns.index(of: key) == nil {
                throw TransferError(
                    file: input.name, position: keyPosition, field: key,
                    reason: "the objects have more than \(TransferFormat.maximumColumns) distinct keys; Shelf's "
                        + "tables have a dozen fields: keep only the keys to import")
            }
            let column = columns.intern(key)
            if record.values.count <= column {
                record.values.append(contentsOf: repeatElement(nil, count: column + 1 - record.values.count))
            }
            if record.values[column] != nil {
                throw TransferError(
                    file: input.name, position: keyPosition, field: key,
                    reason: "this key appears twice in the object; keep one")
            }
            try skipWhitespace()
            guard try input.next() == UInt8(ascii: ":") else { throw problem("expected : after the key", atLast: true) }
            try skipWhitespace()
            record.values[column] = try readValue(into: &record)
            try skipWhitespace()
            switch try input.next() {
            case UInt8(ascii: ","): try skipWhitespace()
            case UInt8(ascii: "}"): return true
            case nil: throw problem("the file ends inside an object; it is cut short")
            default: throw problem("expected a comma or } after a value", atLast: true)
            }
        }
    }

    /// Reads one value of any kind; nested objects and arrays are checked and skipped.
    private mutating func readValue(into record: inout SourceRecord) throws(TransferError) -> SourceValue {
        let position = input.position
        let start = record.storage.count
        let kind: SourceValue.Kind
        switch try input.peek() {
        case UInt8(ascii: "\""):
            try readString(into: &record.storage)
            kind = .text
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte):
            try readNumber(into: &record.storage)
            kind = .number
        case UInt8(ascii: "t"):
            try readLiteral("true", into: &record.storage)
            kind = .bool
        case UInt8(ascii: "f"):
            try readLiteral("false", into: &record.storage)
            kind = .bool
        case UInt8(ascii: "n"):
            try readLiteral("null", into: &scratch)
            kind = .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try skipContainer()
            kind = .nested
        case nil:
            throw problem("the file ends where a value should be; it is cut short")
        default:
            throw problem("expected a value (a string in double quotes, a number, true, false or null)")
        }
        return SourceValue(kind: kind, start: start, end: record.storage.count, position: position)
    }

    /// Reads a nested object or array to its end, with a stack instead of recursion.
    private mutating func skipContainer() throws(TransferError) {
        var stack: [UInt8] = []
        var record = SourceRecord()
        while true {
            // At the start of a value.
            if let byte = try input.peek(), byte == UInt8(ascii: "{") || byte == UInt8(ascii: "["),
                outerDepth + stack.count >= Self.maximumDepth
            {
                throw problem(
                    "values nested deeper than \(Self.maximumDepth) levels (arrays and objects inside one another); "
                        + "a field holds one string, number, true, false or null: flatten the value or leave it out")
            }
            switch try input.peek() {
            case UInt8(ascii: "{"):
                _ = try input.next()
                try skipWhitespace()
                if try input.peek() == UInt8(ascii: "}") {
                    _ = try input.next()
                } else {
                    try readKeyAndColon()
                    stack.append(UInt8(ascii: "{"))
                    continue
                }
            case UInt8(ascii: "["):
                _ = try input.next()
                try skipWhitespace()
                if try input.peek() == UInt8(ascii: "]") {
                    _ = try input.next()
                } else {
                    stack.append(UInt8(ascii: "["))
                    continue
                }
            default:
                record.removeAll()
                _ = try readValue(into: &record)
            }
            // After a value: close containers or move to the next element.
            while let top = stack.last {
                try skipWhitespace()
                let byte = try input.next()
                if byte == UInt8(ascii: ",") {
                    try skipWhitespace()
                    if top == UInt8(ascii: "{") { try readKeyAndColon() }
                    break
                }
                guard byte == (top == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw problem(
                        byte == nil
                            ? "the file ends inside a nested value; it is cut short"
                            : "expected a comma or the end of the nested \(top == UInt8(ascii: "{") ? "object" : "array")",
                        atLast: byte != nil)
                }
                stack.removeLast()
            }
            if stack.isEmpty { return }
            try skipWhitespace()
        }
    }

    private mutating func readKeyAndColon() throws(TransferError) {
        guard try input.peek() == UInt8(ascii: "\"") else { throw problem("expected a key in quotes") }
        scratch.removeAll(keepingCapacity: true)
        try readString(into: &scratch)
        try skipWhitespace()
        guard try input.next() == UInt8(ascii: ":") else { throw problem("expected : after the key", atLast: true) }
        try skipWhitespace()
    }

    // MARK: Tokens

    private func readString(into storage: inout [UInt8]) throws(TransferError) {
        let position = input.position
        let start = storage.count
        _ = try input.next()
        while true {
            guard let byte = try input.next() else {
                throw TransferError(
                    file: input.name, position: position,
                    reason: "the string starting here is never closed; add the closing \"")
            }
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                try readEscape(into: &storage)
            case 0x0A:
                throw problem(
                    lines
                        ? "this line ends inside a string; NDJSON holds one whole object per line: "
                            + "write a line break inside a string as \\n"
                        : "a line break inside a string; write it escaped, as \\n", atLast: true)
            case let control where control < 0x20:
                throw problem(
                    "a control character (0x\(String(byte, radix: 16))) inside a string; write it escaped, "
                        + "as \\n, \\t or \\u00XX", atLast: true)
            default:
                storage.append(byte)
            }
            if storage.count - start > Self.maximumStringBytes {
                throw TransferError(
                    file: input.name, position: position,
                    reason: "the string starting here is longer than \(Self.maximumStringBytes / 1024) KiB")
            }
        }
    }

    private func readEscape(into storage: inout [UInt8]) throws(TransferError) {
        switch try input.next() {
        case let byte? where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/"):
            storage.append(byte)
        case UInt8(ascii: "b"): storage.append(0x08)
        case UInt8(ascii: "f"): storage.append(0x0C)
        case UInt8(ascii: "n"): storage.append(0x0A)
        case UInt8(ascii: "r"): storage.append(0x0D)
        case UInt8(ascii: "t"): storage.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard try input.next() == UInt8(ascii: "\\"), try input.next() == UInt8(ascii: "u") else {
                    throw problem(
                        "a \\u escape of a lone high surrogate; pair it with a low surrogate (\\uDC00–\\uDFFF)")
                }
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw problem("a high surrogate followed by \\u\(String(low, radix: 16)), not a low surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw problem("a \\u escape of a lone low surrogate; it is not a character")
            }
            // Surrogates are handled above, so every value left is a scalar.
            guard let decoded = Unicode.Scalar(scalar) else { throw problem("a \\u escape that is not a character") }
            UTF8.encode(decoded) { storage.append($0) }
        default:
            throw problem(
                "an unknown escape in a string; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX", atLast: true)
        }
    }

    private func readHex4() throws(TransferError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt32
            switch try input.next() {
            case let byte? where (0x30...0x39).contains(byte): digit = UInt32(byte - 0x30)
            case let byte? where (0x41...0x46).contains(byte): digit = UInt32(byte - 0x41 + 10)
            case let byte? where (0x61...0x66).contains(byte): digit = UInt32(byte - 0x61 + 10)
            default: throw problem("a \\u escape needs four hex digits", atLast: true)
            }
            value = value << 4 | digit
        }
        return value
    }

    private func readNumber(into storage: inout [UInt8]) throws(TransferError) {
        func digits(_ storage: inout [UInt8]) throws(TransferError) -> Int {
            var count = 0
            while let byte = try input.peek(), (0x30...0x39).contains(byte) {
                storage.append(byte)
                _ = try input.next()
                count += 1
                if count > 400 { throw problem("a number with more than 400 digits") }
            }
            return count
        }
        if try input.peek() == UInt8(ascii: "-") {
            storage.append(try input.next()!)
        }
        if try input.peek() == UInt8(ascii: "0") {
            storage.append(try input.next()!)
            if let byte = try input.peek(), (0x30...0x39).contains(byte) {
                throw problem("a number with a leading zero; write it without")
            }
        } else if try digits(&storage) == 0 {
            throw problem("a minus sign not followed by digits")
        }
        if try input.peek() == UInt8(ascii: ".") {
            storage.append(try input.next()!)
            if try digits(&storage) == 0 { throw problem("a decimal point not followed by digits") }
        }
        if let byte = try input.peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            storage.append(try input.next()!)
            if let sign = try input.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                storage.append(try input.next()!)
            }
            if try digits(&storage) == 0 { throw problem("an exponent without digits") }
        }
    }

    private func readLiteral(_ literal: StaticString, into storage: inout [UInt8]) throws(TransferError) {
        let position = input.position
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard try input.next() == expected else {
                throw TransferError(
                    file: input.name, position: position,
                    reason: "expected a value (a string in double quotes, a number, true, false or null)")
            }
            storage.append(expected)
        }
    }

    // MARK: Whitespace and the end

    /// Skips white space; in NDJSON, where it is only called inside an object, a line end
    /// there is an error on that line.
    private func skipWhitespace() throws(TransferError) {
        while let byte = try input.peek() {
            switch byte {
            case 0x20, 0x09, 0x0D:
                _ = try input.next()
            case 0x0A:
                guard !lines else {
                    throw problem(
                        "this line ends inside the object that starts at \(objectStart); NDJSON holds one whole "
                            + "object per line: join its lines, or close the object")
                }
                _ = try input.next()
            default:
                return
            }
        }
    }

    private mutating func expectEnd() throws(TransferError) {
        finished = true
        try skipWhitespace()
        if try input.peek() != nil {
            throw problem("text after the end of the JSON value; a file holds one array")
        }
    }

    /// A malformed-input error at the next byte, or `atLast` at the byte just read.
    private func problem(_ reason: String, atLast: Bool = false) -> TransferError {
        TransferError(file: input.name, position: atLast ? input.lastPosition : input.position, reason: reason)
    }
}
