#if Server
    internal import Foundation
    internal import HTTPTypes

    /// A JSON value as read from a request body (by `JSONReader`), so that each field's type can
    /// be checked and named in an error, and written without Foundation's escaping of `/`.
    enum JSONValue: Sendable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        /// The value as compact JSON, keys sorted, every control character escaped.
        func encoded() -> [UInt8] {
            var bytes: [UInt8] = []
            append(to: &bytes)
            return bytes
        }

        func append(to bytes: inout [UInt8]) {
            switch self {
            case .null: bytes.append(contentsOf: "null".utf8)
            case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
            case .integer(let value): bytes.append(contentsOf: String(value).utf8)
            case .number(let value): bytes.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
            case .string(let value): Self.appendString(value, to: &bytes)
            case .array(let values):
                bytes.append(UInt8(ascii: "["))
                for (index, value) in values.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    value.append(to: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            case .object(let fields):
                bytes.append(UInt8(ascii: "{"))
                for (index, key) in fields.keys.sorted().enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    Self.appendString(key, to: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    fields[key]?.append(to: &bytes)
                }
                bytes.append(UInt8(ascii: "}"))
            }
        }

        private static let hex = Array("0123456789abcdef".utf8)

        static func appendString(_ text: String, to bytes: inout [UInt8]) {
            bytes.append(UInt8(ascii: "\""))
            // Most text needs no escape: copied whole, not byte by byte.
            let quote = UInt8(ascii: "\"")
            let backslash = UInt8(ascii: "\\")
            if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == quote || $0 == backslash }) {
                bytes.append(contentsOf: text.utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20, 0x7F:
                    bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        /// Reads `bytes` as one JSON object (by `JSONReader`'s strict rules), or throws a 400 that
        /// says what is wrong.
        static func object(from bytes: [UInt8]) throws -> [String: JSONValue] {
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw Problem(.badRequest, "the request body is not valid UTF-8; send JSON in UTF-8")
            }
            let value: JSONValue
            do {
                value = try JSONReader.value(from: bytes)
            } catch {
                throw Problem(
                    .badRequest, "the request body is not valid JSON (\(error.message)); send one JSON object")
            }
            guard case .object(let fields) = value else {
                throw Problem(
                    .badRequest, "the request body is not a JSON object; send one, such as {\"title\": \"…\"}")
            }
            return fields
        }
    }

    /// The fields of a request body, read one by one with their types checked; a field not
    /// read by the end is refused (`finish`), so a misspelt field is an error, not ignored.
    struct BodyFields {
        private var fields: [String: JSONValue]
        private var read: Set<String> = []

        init(_ fields: [String: JSONValue]) { self.fields = fields }

        /// True when the body has `name` (even as null).
        func has(_ name: String) -> Bool { fields[name] != nil }

        mutating func string(_ name: String) throws -> String? {
            read.insert(name)
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw Problem(.badRequest, "field '\(name)' must be a string")
            }
        }

        mutating func integer(_ name: String) throws -> Int64? {
            read.insert(name)
            switch fields[name] {
            case nil, .null?: return nil
            case .integer(let value)?: return value
            default: throw Problem(.badRequest, "field '\(name)' must be an integer")
            }
        }

        /// A 400 when the body names no field: a change of nothing is a client's mistake, and
        /// must not pass for a change (a new version, a new `updated_at`).
        func requireSome(known: String) throws {
            guard fields.isEmpty else { return }
            throw Problem(.badRequest, "the body names no field to change; the fields are \(known)")
        }

        /// A 400 when one of `names` is given as null: these fields always have a value, and a
        /// null would otherwise be read as "leave it", a change that silently changes nothing.
        func refuseNull(_ names: [String]) throws {
            guard let name = names.first(where: { fields[$0] == .null }) else { return }
            throw Problem(.badRequest, "field '\(name)' cannot be null; give a value, or leave the field out")
        }

        /// Refuses the fields nobody read.
        func finish(known: String) throws {
            let unknown = Set(fields.keys).subtracting(read).sorted()
            guard unknown.isEmpty else {
                let names = unknown.map {
                    "'\($0.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined())'"
                }
                throw Problem(
                    .badRequest,
                    "unknown field\(unknown.count == 1 ? "" : "s") \(names.joined(separator: ", ")); the fields are \(known)"
                )
            }
        }
    }
#endif
