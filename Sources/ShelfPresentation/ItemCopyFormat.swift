public import ShelfStore

/// The text the browser copies for items: pure functions of the items and their owners.
public enum ItemCopyFormat {
    /// One line per item, `#12 [open] Title — Owner Name`, ending in a line break. Control
    /// characters (escape bytes, line breaks, tabs, C1 controls) and bidirectional overrides in
    /// titles and names become spaces, so a pasted line is one line and nothing in the data can
    /// drive a terminal. `owners` gives names; a missing owner reads "user N".
    public static func lines(_ items: [Item], owners: [User.ID: User]) -> String {
        var text = ""
        for item in items {
            let owner = owners[item.userID]?.name ?? "user \(item.userID.rawValue)"
            text += "#\(item.id.rawValue) [\(item.status.rawValue)] \(clean(item.title)) — \(clean(owner))\n"
        }
        return text
    }

    /// The items as a JSON array in the shape `shelf export items --format json` writes: one
    /// object per line with `id`, `user` (the owner's email), `title`, `notes`, `status`,
    /// `priority`, `created_at`, `updated_at` (ISO 8601 UTC, milliseconds). `"`, `\`, C0
    /// controls and DEL are escaped as the export escapes them; so are, unlike the export,
    /// C1 controls (U+0080–U+009F), bidirectional marks, overrides and isolates, and the line
    /// and paragraph separators, as `\uXXXX`: the same JSON values, and text that can drive
    /// no terminal it is pasted into. A missing owner's email is null.
    public static func json(_ items: [Item], owners: [User.ID: User]) -> String {
        guard !items.isEmpty else { return "[]\n" }
        var text = "["
        for (index, item) in items.enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text += jsonObject(item, owners: owners)
        }
        return text + "\n]\n"
    }

    /// One item of `json(_:owners:)`, without the separator.
    static func jsonObject(_ item: Item, owners: [User.ID: User]) -> String {
        var text = "{\"id\":\(item.id.rawValue),\"user\":\(jsonString(owners[item.userID]?.email))"
        text += ",\"title\":\(jsonString(item.title)),\"notes\":\(jsonString(item.notes))"
        text += ",\"status\":\(jsonString(item.status.rawValue)),\"priority\":\(item.priority)"
        text += ",\"created_at\":\"\(TimeFormat.iso8601(item.createdAt))\""
        text += ",\"updated_at\":\"\(TimeFormat.iso8601(item.updatedAt))\"}"
        return text
    }

    /// `text` with every control or bidirectional formatting character turned into a space.
    static func clean(_ text: String) -> String {
        // Most titles hold none: their bytes are checked, and the text is returned as it is.
        // Every scalar `unsafe` names starts with one of these bytes in UTF-8 (C0 controls and
        // DEL; U+0080–U+009F; U+061C; U+200E–U+2069).
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 })
        else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(unsafe(scalar) ? " " : scalar) }
        return String(result)
    }

    /// True for a control, bidirectional formatting or line/paragraph separator character.
    private static func unsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
        let isBidi =
            (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E
            || value == 0x200F || value == 0x061C
        let isSeparator = value == 0x2028 || value == 0x2029
        return isControl || isBidi || isSeparator
    }

    /// A JSON string as the exporter writes it, or `null`.
    static func jsonString(_ text: String?) -> String {
        guard let text else { return "null" }
        // Most text needs no escape: its bytes are checked, and it is quoted as it is. Every
        // scalar `unsafe` names starts with one of these bytes in UTF-8.
        guard
            text.utf8.contains(where: {
                $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2
            })
        else {
            return "\"" + text + "\""
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case let control where control < 0x20 || unsafe(scalar):
                let hex = String(control, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
