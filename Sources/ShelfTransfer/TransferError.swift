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

    public var description: String {
        var text = ""
        if let file {
            text += file
            if let position { text += ":\(position)" }
            text += ": "
        }
        if let field { text += "field '\(field)'" + (value == nil ? ": " : ", ") }
        if let value { text += "value \(value): " }
        return text + reason
    }

    /// Quoted, with control characters escaped and long values cut, so the message stays
    /// one readable line.
    static func shortened(_ value: String) -> String {
        var text = "\""
        var length = 0
        for scalar in value.unicodeScalars {
            if length == 60 {
                text += "…"
                break
            }
            length += 1
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
