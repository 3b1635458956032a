internal import Foundation

/// Finds the line of a key in TOML text by reading table headers and `key =` lines: enough
/// for a configuration file, which TOMLKit parses without telling where each value was.
struct LineLocator {
    /// The first line naming each path: a table's header, or a key's `key =` line.
    private var lines: [[String]: Int] = [:]
    /// The first line that makes each table implicitly: `[keys.list.deep.deeper]` makes
    /// `keys.list.deep` (it was named at `[keys.list]`'s line, hostile round 8), as
    /// `a.b = 1` makes `a`.
    private var implied: [[String]: Int] = [:]

    init(lines text: [String]) {
        var table: [String] = []
        for (index, line) in text.enumerated() {
            let key = TOMLLineKey(line)
            guard !key.parts.isEmpty else { continue }
            let path: [String]
            if key.isHeader {
                table = key.parts
                path = table
            } else if key.isAssignment {
                path = table + key.parts
            } else {
                continue
            }
            if lines[path] == nil { lines[path] = index + 1 }
            for count in 1..<path.count where implied[Array(path.prefix(count))] == nil {
                implied[Array(path.prefix(count))] = index + 1
            }
        }
    }

    /// The line of `path`, or of the nearest table around it: where it is named, else the
    /// first line that makes it implicitly.
    func line(of path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = lines[path] ?? implied[path] { return line }
            path.removeLast()
        }
        return nil
    }

    /// The full path (table and key) of each line of `text` that names one, by index.
    static func paths(of text: [String]) -> [[String]?] {
        var table: [String] = []
        return text.map { line in
            let key = TOMLLineKey(line)
            guard !key.parts.isEmpty else { return nil }
            if key.isHeader {
                table = key.parts
                return table
            }
            return key.isAssignment ? table + key.parts : nil
        }
    }
}

/// The key a line of TOML starts with: a table's header (`[keys.list]`, `[[x]]`) or the key of
/// a `key = value` line, read as TOML reads keys (bare parts, "basic" and 'literal' quoted parts,
/// dots between them with spaces around), in one pass over the line and no further than the key.
struct TOMLLineKey {
    /// The parts as TOML reads them: quotes removed, a basic part's escapes decoded
    /// (`"a\u0041"` is `aA`, as TOMLKit names it).
    private(set) var parts: [String] = []
    /// The key as the file writes it, quotes and escapes included (`"he\u006cp"`), for
    /// messages.
    private(set) var written = ""
    /// The dots between the parts (one fewer than the parts, when the key is whole).
    private(set) var dots = 0
    /// True for a table's header (the line starts with `[`).
    private(set) var isHeader = false
    /// True when an `=` follows the key (not a header).
    private(set) var isAssignment = false

    init(_ line: String) {
        let bytes = Array(line.utf8)
        var index = 0
        func skipSpaces() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }
        func isBare(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
            isHeader = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "[") { index += 1 }
        }
        var keyStart: Int?
        func record() {
            if let keyStart { written = String(decoding: bytes[keyStart..<index], as: UTF8.self) }
        }
        while true {
            skipSpaces()
            guard index < bytes.count else { return }
            let start = index
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[index]
                index += 1
                while index < bytes.count, bytes[index] != quote {
                    // A basic string's backslash escapes the next byte (\" is not its end).
                    if quote == UInt8(ascii: "\""), bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    index += 1
                }
                guard index < bytes.count else { return }  // no closing quote: no key
                let part = bytes[(start + 1)..<index]
                index += 1
                let text = String(decoding: part, as: UTF8.self)
                parts.append(quote == UInt8(ascii: "\"") ? Self.unescaped(text) : text)
            case let byte where isBare(byte):
                while index < bytes.count, isBare(bytes[index]) { index += 1 }
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
            default:
                return  // `=`, `]`, `#`, or anything else: the key ended
            }
            if keyStart == nil { keyStart = start }
            record()
            skipSpaces()
            guard index < bytes.count else { return }
            switch bytes[index] {
            case UInt8(ascii: "."):
                dots += 1
                index += 1
            case UInt8(ascii: "="):
                isAssignment = !isHeader
                return
            default:
                return
            }
        }
    }

    /// A basic string's escapes decoded as TOML decodes them (`\\`, `\"`, `\b`, `\t`, `\n`,
    /// `\f`, `\r`, `\e`, `\uXXXX`, `\UXXXXXXXX`); one it does not know is kept as written.
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var rest = Substring(text)
        while let slash = rest.firstIndex(of: "\\") {
            result += rest[..<slash]
            rest = rest[rest.index(after: slash)...]
            guard let code = rest.first else {
                result += "\\"
                break
            }
            let simple: [Character: String] = [
                "\\": "\\", "\"": "\"", "b": "\u{08}", "t": "\t", "n": "\n", "f": "\u{0C}", "r": "\r",
                "e": "\u{1B}",
            ]
            if let replacement = simple[code] {
                result += replacement
                rest = rest.dropFirst()
            } else if code == "u" || code == "U" {
                let digits = rest.dropFirst().prefix(code == "u" ? 4 : 8)
                if digits.count == (code == "u" ? 4 : 8), let value = UInt32(digits, radix: 16),
                    let scalar = Unicode.Scalar(value)
                {
                    result.unicodeScalars.append(scalar)
                    rest = rest.dropFirst(1 + digits.count)
                } else {
                    result += "\\"
                }
            } else {
                result += "\\"
            }
        }
        return result + rest
    }
}
