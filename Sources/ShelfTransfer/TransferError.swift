internal import ShelfStore

/// Why an import or export failed, or why one row was refused.
///
/// `description` reads `FILE:LINE:COLUMN: field 'title', value "…": reason; what to do` when
/// the problem has a place in the input, else just the message.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input's name (a path, or "stdin"), when the problem is in an input.
    public var file: String?
    /// Where in the input, when known.
    public var position: SourcePosition?
    /// The field (column) at fault, when one is.
    public var field: String?
    /// The offending value as read, shortened for display, when one is.
    public var value: String?
    /// What is wrong and what to do.
    public var reason: String
    /// True when the output's reader went away (a pipe or FIFO closed by the program reading
    /// it: EPIPE). The command then ends as it ends when the reader of its stdout pipe goes
    /// (`shelf export … | head`): quietly, with status 0.
    package var readerGone = false

    /// A problem with a place in the input.
    public init(file: String?, position: SourcePosition?, field: String? = nil, value: String? = nil, reason: String) {
        self.file = file
        self.position = position
        self.field = field
        self.value = value.map(Self.shortened)
        self.reason = reason
    }

    /// A problem with no place in the input (a file that cannot be opened, a full disk).
    public init(_ reason: String) {
        self.init(file: nil, position: nil, reason: reason)
    }

    /// The message, one line for a terminal: control, format and separator characters
    /// (escape sequences, bidi overrides, U+2028) are written as `\u{…}` escapes wherever
    /// they come from, a field name is cut at `displayLimit` characters, and a reason past
    /// `reasonLimit` characters keeps its start and its end (the advice).
    public var description: String {
        var text = ""
        if let file {
            text += Self.escaped(file, limit: 300)
            if let position { text += ":\(position)" }
            text += ": "
        }
        if let field {
            text += "field '\(Self.escaped(field, limit: Self.displayLimit))'" + (value == nil ? ": " : ", ")
        }
        if let value { text += "value \(value): " }
        let scalars = reason.unicodeScalars
        guard scalars.count > Self.reasonLimit else { return text + Self.escaped(reason) }
        let head = String(String.UnicodeScalarView(scalars.prefix(Self.reasonLimit * 2 / 3)))
        let tail = String(String.UnicodeScalarView(scalars.suffix(Self.reasonLimit / 3)))
        return text + Self.escaped(head) + " … " + Self.escaped(tail)
    }

    /// The most characters of a value or field name a message shows.
    static let displayLimit = 80
    /// The most characters of a reason a message shows.
    static let reasonLimit = 600

    /// Quoted, with control characters escaped and long values cut, so the message stays
    /// one readable line.
    static func shortened(_ value: String) -> String {
        "\"" + escaped(value, limit: displayLimit, quoting: true) + "\""
    }

    /// `text` safe to print to a terminal: scalars that are not visible text (controls, such
    /// as ESC, format characters such as U+202E, line and paragraph separators) as `\u{…}`,
    /// `\n` `\r` `\t` as such; at most `limit` characters then `…`. With `quoting`, `"` and `\`
    /// are escaped too.
    static func escaped(_ text: String, limit: Int = .max, quoting: Bool = false) -> String {
        var result = ""
        var length = 0
        for scalar in text.unicodeScalars {
            if length == limit {
                result += "…"
                break
            }
            length += 1
            switch scalar {
            case "\"" where quoting: result += "\\\""
            case "\\" where quoting: result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default:
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Names for a message: the first `limit`, escaped and cut, comma-separated, then how many in all.
    static func list(_ names: [String], limit: Int = 12) -> String {
        let shown = names.prefix(limit).map { escaped($0, limit: 40) }.joined(separator: ", ")
        return names.count > limit ? shown + ", … (\(names.count) in all)" : shown
    }

    /// The input `name` (a path, or "stdin") as a shell word in advice (`gzip -t FILE`),
    /// quoted by `ShellQuoting`, with `suffix` added (`.utf8`); FILE for stdin, which has no
    /// name to paste.
    static func shellWord(_ name: String, suffix: String = "") -> String {
        name == "stdin" ? "FILE" + suffix : ShellQuoting.quoted(name + suffix)
    }
}
