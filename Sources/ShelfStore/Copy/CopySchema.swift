/// The tables and columns a copy carries (`Store.copy(to:)`), the same on every backend: every
/// column that holds data, and nothing derived (full-text indexes, change counters, generated
/// search columns and migration records are made by the target's own schema).
///
/// A migration that adds a table or a column of data must add it here too: a copy refuses a
/// source whose schema holds a table or column this list does not know
/// (`CopyTable.unknownColumns`), rather than leave it behind.
package enum CopyTable: String, CaseIterable, Sendable {
    // In the order they are written: users before the items and views that refer to them.
    case users
    case items
    case savedViews = "saved_views"
    case apiTokens = "api_tokens"

    /// The table's name in SQL.
    package var name: String { rawValue }

    /// The columns copied, the ID first.
    package var columns: [CopyColumn] {
        switch self {
        case .users:
            [
                .init("id", .integer), .init("name", .text), .init("email", .text),
                .init("email_key", .text, nullable: true), .init("created_at", .integer),
            ]
        case .items:
            [
                .init("id", .integer), .init("user_id", .integer), .init("title", .text),
                .init("notes", .text, nullable: true), .init("status", .text), .init("priority", .integer),
                .init("created_at", .integer), .init("updated_at", .integer), .init("version", .integer),
            ]
        case .savedViews:
            [
                .init("id", .integer), .init("name", .text), .init("name_key", .text), .init("query_text", .text),
                .init("sort_field", .text), .init("sort_direction", .text),
                .init("owner_id", .integer, nullable: true), .init("created_at", .integer),
                .init("updated_at", .integer), .init("version", .integer),
            ]
        case .apiTokens:
            [
                .init("id", .integer), .init("name", .text), .init("user_id", .integer),
                .init("token_hash", .text), .init("read_only", .boolean), .init("created_at", .integer),
            ]
        }
    }

    /// The column that refers to a user by ID, with its position in `columns`; nil for a
    /// table that refers to none. (Every reference of the schema points at `users`.)
    package var userReference: (column: String, index: Int)? {
        let name: String
        switch self {
        case .users: return nil
        case .items, .apiTokens: name = "user_id"
        case .savedViews: name = "owner_id"
        }
        guard let index = columns.firstIndex(where: { $0.name == name }) else { return nil }
        return (name, index)
    }

    /// The column names, comma-separated, for SQL.
    package var columnList: String { columns.map(\.name).joined(separator: ", ") }

    /// How a person calls `count` rows of this table ("1 user", "3 saved views").
    package func counted(_ count: Int) -> String {
        let noun =
            switch self {
            case .users: "user"
            case .items: "item"
            case .savedViews: "saved view"
            case .apiTokens: "API token"
            }
        return "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// Tables and columns of a schema that hold data a copy would not carry: those of `schema`
    /// (table name → its columns) that are not in this list, past the backend's derived ones
    /// (`ignoring`), as "table.column" (or "table" for a whole table), sorted.
    package static func unknownColumns(in schema: [String: [String]], ignoring: Set<String>) -> [String] {
        var unknown: [String] = []
        for (table, columns) in schema where !ignoring.contains(table) {
            guard let known = CopyTable(rawValue: table) else {
                unknown.append(table)
                continue
            }
            let names = Set(known.columns.map(\.name))
            for column in columns where !names.contains(column) && !ignoring.contains("\(table).\(column)") {
                unknown.append("\(table).\(column)")
            }
        }
        return unknown.sorted()
    }
}

/// One copied column: its name and what it holds.
package struct CopyColumn: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// A 64-bit integer (IDs, times in milliseconds, versions, priorities).
        case integer
        /// Text, copied as its UTF-8 bytes.
        case text
        /// True or false: an integer 0 or 1 on SQLite, a `boolean` on PostgreSQL, copied and
        /// fingerprinted as the integer.
        case boolean
    }

    package let name: String
    package let kind: Kind
    package let nullable: Bool

    package init(_ name: String, _ kind: Kind, nullable: Bool = false) {
        self.name = name
        self.kind = kind
        self.nullable = nullable
    }
}

/// One value of a copied column, exactly as stored: text as its bytes, so notes are copied
/// byte for byte.
package enum CopyValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text([UInt8])

    /// The value as an integer, or nil for NULL or text.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}

/// One copied row: its values in the order of `CopyTable.columns` (the ID first).
package typealias CopyRow = [CopyValue]
