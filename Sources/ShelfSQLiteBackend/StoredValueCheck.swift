internal import ShelfSQLite
internal import ShelfStore

/// The one rule for values another program stored in a shelf's SQLite file with the wrong
/// type: every column of `CopyTable.columns` holds its kind (an INTEGER for integers and
/// times, TEXT for text, NULL only where the column may be empty), and text is well-formed
/// UTF-8. SQLite stores whatever it is given (`sqlite3 … "UPDATE items SET priority = 2.5"`),
/// and reading such a value as its kind makes one up: text in `created_at` read as 1970, 2.5
/// as 2, bytes that are not UTF-8 as U+FFFD (the hostile tester's F7).
///
/// `shelf copy`, exports, the reading of one item (`items show`, the browser's detail) and the
/// server's list and live windows (`refuseMistypedItems`, once per page or window) refuse such a
/// row with `mistyped`'s message; the browser's page of the list shows it as read, so that one
/// bad row does not keep a browser from opening.
enum StoredValueCheck {
    /// Throws (`.database`), naming the first row by ID, its column, what it holds and the
    /// `sqlite3` statement that corrects it, when a row of `table` (only the row `id`, when
    /// given) holds a value that is not of its column's kind. `action` says what to do once
    /// it is corrected ("copy", "export"). One statement, a scan of the table (or a lookup
    /// of the row).
    static func refuseMistyped(
        _ table: CopyTable, id: Int64? = nil, on connection: Connection, location: String, action: String
    ) throws {
        let checks = table.columns.map { column in
            let kinds = (column.kind != .text ? ["'integer'"] : ["'text'"]) + (column.nullable ? ["'null'"] : [])
            return (column.name, "typeof(\(column.name)) NOT IN (\(kinds.joined(separator: ", ")))")
        }
        let which = "CASE " + checks.map { "WHEN \($0.1) THEN '\($0.0)'" }.joined(separator: " ") + " END"
        let condition =
            (id == nil ? "" : "id = ? AND (") + checks.map(\.1).joined(separator: " OR ")
            + (id == nil ? "" : ")")
        let sql = "SELECT id, \(which) FROM \(table.name) WHERE \(condition) ORDER BY id LIMIT 1"
        let found = try StoreError.translating {
            try connection.fetch(sql, arguments: id.map { [$0] as [any SQLBindable] } ?? []) {
                (try $0.get(0, as: Int64?.self), try $0.string(1))
            }.first
        }
        guard let (row, column) = found else { return }
        let shown = try StoreError.translating {
            try connection.fetchOne(
                "SELECT typeof(\(column)), CASE WHEN typeof(\(column)) IN ('text', 'blob') "
                    + "THEN quote(substr(\(column), 1, 40)) ELSE quote(\(column)) END FROM \(table.name) WHERE id IS ?",
                row
            ) { (try $0.string(0), try $0.string(1)) }
        }
        let kind = table.columns.first { $0.name == column }?.kind ?? .integer
        throw mistyped(
            table, id: row, column: column, holds: shown.map { "\($0.0) \($0.1)" } ?? "a value", kind: kind,
            location: location, action: action)
    }

    /// Throws as `refuseMistyped` when one of the items `ids` (a page another read returned)
    /// holds a value that is not of its column's kind, or title or notes that are not UTF-8:
    /// the first such row by ID, named with its column and the `sqlite3` statement that
    /// corrects it. One statement over the rows by their primary key, so its cost is that of
    /// the rows, not of the table; `action` as for `refuseMistyped`.
    static func refuseMistypedItems(
        _ ids: [Int64], on connection: Connection, location: String, action: String
    ) throws {
        guard !ids.isEmpty else { return }
        let table = CopyTable.items
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let statement = try StoreError.translating {
            try connection.makeStatement(
                "SELECT \(table.columnList) FROM items WHERE id IN (\(placeholders)) ORDER BY id")
        }
        let columns = table.columns
        let text = columns.indices.filter { columns[$0].kind == .text }
        try StoreError.translating {
            try statement.bind(arguments: ids)
            try statement.forEachRow { row in
                let id = try row.int64(0)
                for (index, column) in columns.enumerated()
                where !holds(row, Int32(index), column.kind, nullable: column.nullable) {
                    try refuseMistyped(table, id: id, on: connection, location: location, action: action)
                    throw mistyped(
                        table, id: id, column: column.name, holds: "a value of another type", kind: column.kind,
                        location: location, action: action)
                }
                for index in text {
                    try refuseMalformed(
                        row.textBytes(Int32(index)), table, id: id, column: columns[index].name, location: location,
                        action: action)
                }
            }
        }
    }

    /// The per-row form of the rule, for loops that read rows anyway: true when column
    /// `index` of `row` holds `kind` (or NULL, when `nullable`). One `sqlite3_column_type`
    /// call, no allocation; on false, call `refuseMistyped(_:id:on:location:action:)` for the
    /// row, which says what it holds.
    @inline(__always)
    static func holds(_ row: Row, _ index: Int32, _ kind: CopyColumn.Kind, nullable: Bool = false) -> Bool {
        switch row.storageClass(index) {
        case .integer: kind != .text
        case .text: kind == .text
        case .null: nullable
        case .real, .blob: false
        }
    }

    /// Throws as `refuseMistyped` when text `bytes` of column `column` of row `id` are not
    /// well-formed UTF-8. In place: no allocation for well-formed text.
    @inline(__always)
    static func refuseMalformed(
        _ bytes: UnsafeBufferPointer<UInt8>?, _ table: CopyTable, id: Int64, column: String, location: String,
        action: String
    ) throws {
        guard let bytes, !UTF8Validation.isValid(bytes) else { return }
        let hex = bytes.prefix(20).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + digits : digits
        }.joined()
        throw mistyped(
            table, id: id, column: column,
            holds: "bytes that are not UTF-8 text (X'\(hex)\(bytes.count > 20 ? "…" : "")')", kind: .text,
            location: location, action: action)
    }

    /// The message of both checks.
    static func mistyped(
        _ table: CopyTable, id: Int64?, column: String, holds: String, kind: CopyColumn.Kind, location: String,
        action: String
    ) -> StoreError {
        let row = id.map { "\(table.name) row \($0)" } ?? "a \(table.name) row without an ID"
        let expected = kind == .text ? "UTF-8 text" : "an integer"
        let target = id.map { "id = \($0)" } ?? "id IS NULL"
        let fix: String
        var note = ""
        switch (kind, column) {
        case (.text, _):
            fix = "UPDATE \(table.name) SET \(column) = 'the right text' WHERE \(target);"
        case (_, "created_at"), (_, "updated_at"):
            fix = "UPDATE \(table.name) SET \(column) = 1700000000000 WHERE \(target);"
            note = ", the time in milliseconds since 1970 UTC"
        default:
            fix = "UPDATE \(table.name) SET \(column) = CAST(\(column) AS INTEGER) WHERE \(target);"
        }
        // `.database`, not `.invalidValue`: the fault is in what is stored, not in what was asked
        // (the server answers 500, not 400; the command exits 1, not 2).
        return StoreError(
            .database,
            "\(row) in \(location) holds \(holds) in \(column), which shelf keeps as \(expected) (another program "
                + "wrote it); rather than make up a value, shelf refuses it. Correct it with sqlite3 "
                + "(sqlite3 \(ShellQuoting.quoted(location)) \(ShellQuoting.quoted(fix)), for example\(note)), then "
                + "\(action) again")
    }
}
