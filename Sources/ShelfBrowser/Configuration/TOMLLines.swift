internal import Foundation

/// Finds the line of a key in TOML text by reading table headers and `key =` lines: enough
/// for a configuration file, which TOMLKit parses without telling where each value was.
struct LineLocator {
    private var lines: [[String]: Int] = [:]

    init(lines text: [String]) {
        var table: [String] = []
        for (index, line) in text.enumerated() {
            let key = TOMLLineKey(line)
            guard !key.parts.isEmpty else { continue }
            if key.isHeader {
                table = key.parts
                if lines[table] == nil { lines[table] = index + 1 }
            } else if key.isAssignment {
                let path = table + key.parts
                if lines[path] == nil { lines[path] = index + 1 }
            }
        }
    }

    /// The line of `path`, or of the nearest table around it.
    func line(of path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = lines[path] { return line }
            path.removeLast()
        }
        return nil
    }
}

/// The key a line of TOML starts with: a table's header (`[keys.list]`, `[[x]]`) or the key of
/// a `key = value` line, read as TOML reads keys (bare parts, "basic" and 'literal' quoted parts,
/// dots between them with spaces around), in one pass over the line and no further than the key.
struct TOMLLineKey {
    /// The parts, their quotes removed (a basic part's escapes are kept as written).
    private(set) var parts: [String] = []
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
        while true {
            skipSpaces()
            guard index < bytes.count else { return }
            let start = index
            let part: ArraySlice<UInt8>
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
                part = bytes[(start + 1)..<index]
                index += 1
            case let byte where isBare(byte):
                while index < bytes.count, isBare(bytes[index]) { index += 1 }
                part = bytes[start..<index]
            default:
                return  // `=`, `]`, `#`, or anything else: the key ended
            }
            parts.append(String(decoding: part, as: UTF8.self))
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
}
