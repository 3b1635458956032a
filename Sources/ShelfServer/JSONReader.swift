#if Server
    /// A strict reader of JSON (RFC 8259) into `JSONValue`, for request bodies: what a general
    /// decoder lets through or words for programmers is refused here with a message that says
    /// where and what to do.
    ///
    /// - A key given twice in one object is refused, naming it (a decoder keeps the last, so a
    ///   body could say one thing to a proxy that reads the first and another to the store).
    /// - A `\u` escape of a lone UTF-16 surrogate (`"\ud800"`) is refused: it is no character.
    /// - Nesting is at most `maximumDepth` deep, so a body of `[[[[…` costs no deep recursion.
    /// - An integer outside Int64 is read as a number, which a field that takes an integer refuses.
    ///
    /// The input must be valid UTF-8 (checked before). Linear in the input.
    struct JSONReader {
        /// The deepest nesting of arrays and objects taken.
        static let maximumDepth = 64

        /// Why a body could not be read: the detail of a 400.
        struct Failure: Error {
            let message: String
        }

        private let bytes: [UInt8]
        private var position = 0

        /// Reads `bytes` as exactly one JSON value (white space around it allowed).
        static func value(from bytes: [UInt8]) throws(Failure) -> JSONValue {
            var reader = JSONReader(bytes: bytes)
            reader.skipSpace()
            let value = try reader.readValue(depth: 0, path: "")
            reader.skipSpace()
            guard reader.position == bytes.count else { throw reader.failure("more text after the JSON value") }
            return value
        }

        private init(bytes: [UInt8]) { self.bytes = bytes }

        private func failure(_ what: String) -> Failure {
            Failure(message: "\(what) at byte \(position + 1)")
        }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        }

        private mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
            let expected = Array(literal.utf8)
            guard bytes.count - position >= expected.count,
                Array(bytes[position..<position + expected.count]) == expected
            else { throw failure("an unknown word (JSON has true, false and null)") }
            position += expected.count
            return value
        }

        private mutating func readValue(depth: Int, path: String) throws(Failure) -> JSONValue {
            guard let byte = current else { throw failure("the body ends where a value should be") }
            switch byte {
            case UInt8(ascii: "{"): return try readObject(depth: depth + 1, path: path)
            case UInt8(ascii: "["): return try readArray(depth: depth + 1, path: path)
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
            default: throw failure("an unexpected character where a value should be")
            }
        }

        private mutating func readObject(depth: Int, path: String) throws(Failure) -> JSONValue {
            guard depth <= Self.maximumDepth else {
                throw failure("objects and arrays nested over \(Self.maximumDepth) deep")
            }
            position += 1
            var fields: [String: JSONValue] = [:]
            skipSpace()
            if current == UInt8(ascii: "}") {
                position += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw failure("a field name (a string) expected") }
                let start = position
                let key = try readString()
                let name = path.isEmpty ? key : path + "." + key
                guard fields[key] == nil else {
                    position = start
                    throw Failure(
                        message:
                            "field '\(Self.printable(name))' is given twice (at byte \(start + 1)); give each field once"
                    )
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw failure("':' expected after a field name") }
                position += 1
                skipSpace()
                fields[key] = try readValue(depth: depth, path: name)
                skipSpace()
                switch current {
                case UInt8(ascii: ",")?: position += 1
                case UInt8(ascii: "}")?:
                    position += 1
                    return .object(fields)
                default: throw failure("',' or '}' expected in an object")
                }
            }
        }

        private mutating func readArray(depth: Int, path: String) throws(Failure) -> JSONValue {
            guard depth <= Self.maximumDepth else {
                throw failure("objects and arrays nested over \(Self.maximumDepth) deep")
            }
            position += 1
            var values: [JSONValue] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(values)
            }
            while true {
                skipSpace()
                values.append(try readValue(depth: depth, path: "\(path)[\(values.count)]"))
                skipSpace()
                switch current {
                case UInt8(ascii: ",")?: position += 1
                case UInt8(ascii: "]")?:
                    position += 1
                    return .array(values)
                default: throw failure("',' or ']' expected in an array")
                }
            }
        }

        private mutating func readString() throws(Failure) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ end: Int) {
                // The input is valid UTF-8, so a run between escapes decodes whole.
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while true {
                guard let byte = current else { throw failure("a string with no closing quote") }
                switch byte {
                case UInt8(ascii: "\""):
                    flush(position)
                    position += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush(position)
                    scalars.append(try readEscape())
                    run = position
                case 0..<0x20:
                    throw failure(
                        "a control character (U+00\(Self.hex(byte))) inside a string; escape it as \\u00\(Self.hex(byte))"
                    )
                default: position += 1
                }
            }
        }

        private mutating func readEscape() throws(Failure) -> Unicode.Scalar {
            position += 1
            guard let byte = current else { throw failure("a string with no closing quote") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let start = position - 2
                let unit = try readHexUnit()
                if (0xDC00...0xDFFF).contains(unit) { throw loneSurrogate(unit, at: start) }
                if (0xD800...0xDBFF).contains(unit) {
                    guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw loneSurrogate(unit, at: start) }
                    position += 2
                    let low = try readHexUnit()
                    guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(unit, at: start) }
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    // A valid pair always makes a scalar.
                    return Unicode.Scalar(value) ?? "\u{FFFD}"
                }
                return Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}"
            default:
                position -= 1
                throw failure(
                    "an unknown escape '\\\(Self.printable(String(decoding: [byte], as: UTF8.self)))' in a string")
            }
        }

        private func loneSurrogate(_ unit: UInt16, at start: Int) -> Failure {
            Failure(
                message: "the string escape \\u\(String(unit, radix: 16)) at byte \(start + 1) is half of a UTF-16 "
                    + "surrogate pair with no other half, which is no character; send the text as UTF-8")
        }

        private mutating func readHexUnit() throws(Failure) -> UInt16 {
            var unit: UInt16 = 0
            for _ in 0..<4 {
                guard let byte = current, let digit = Self.hexDigit(byte) else {
                    throw failure("\\u not followed by four hex digits")
                }
                unit = unit << 4 | UInt16(digit)
                position += 1
            }
            return unit
        }

        private mutating func readNumber() throws(Failure) -> JSONValue {
            let start = position
            var isInteger = true
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, Self.isDigit(first) else { throw failure("a number with no digits") }
            if first == UInt8(ascii: "0") {
                position += 1
                if let next = current, Self.isDigit(next) { throw failure("a number with a leading zero") }
            } else {
                while let byte = current, Self.isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                guard let byte = current, Self.isDigit(byte) else { throw failure("no digits after a decimal point") }
                while let byte = current, Self.isDigit(byte) { position += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let byte = current, Self.isDigit(byte) else { throw failure("no digits in an exponent") }
                while let byte = current, Self.isDigit(byte) { position += 1 }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if isInteger, let value = Int64(text) { return .integer(value) }
            return .number(Double(text) ?? .infinity)
        }

        private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        private static func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        private static func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }

        /// `text` for a message: at most 80 characters, controls and non-ASCII as `?`.
        static func printable(_ text: String) -> String {
            String(text.unicodeScalars.prefix(80).map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
        }
    }
#endif
