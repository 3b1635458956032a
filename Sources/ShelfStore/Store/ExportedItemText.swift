internal import ShelfSQLite

/// An item as an export writes it, its text as UTF-8 bytes read in place: no `String` per
/// field, which for a million items is a good part of an export's time. The buffers are valid
/// only during the call they are passed to. Times are milliseconds since 1970.
package struct ExportedItemText {
    package var id: Int64
    package var ownerEmail: UnsafeBufferPointer<UInt8>
    package var title: UnsafeBufferPointer<UInt8>
    package var notes: UnsafeBufferPointer<UInt8>?
    package var status: UnsafeBufferPointer<UInt8>
    package var priority: Int
    package var createdAt: Int64
    package var updatedAt: Int64
}

extension Store {
    /// `forEachItem(matching:_:)` with the text as bytes (see `ExportedItemText`): the same
    /// items, in the same order, with the same text. On SQLite the bytes are the database's
    /// own when they are well-formed UTF-8; other text goes through `String`, which repairs
    /// it as `forEachItem` does. Other backends go through `forEachItem`. Blocks as
    /// `forEachItem`.
    package func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws {
        try backend.forEachItemText(matching: query, body)
    }
}

extension SQLiteBackend {
    /// The database's own bytes when they are well-formed UTF-8; other text goes through
    /// `String`, which repairs it as `forEachItem` does.
    func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws {
        let (sql, arguments) = Self.exportSQL(matching: query)
        try database.read { connection in
            let statement = try StoreError.translating { try connection.makeStatement(sql) }
            try StoreError.translating {
                try statement.bind(arguments: arguments)
                try statement.forEachRow { row in
                    guard let email = row.textBytes(1), let title = row.textBytes(2), let status = row.textBytes(4)
                    else {
                        // A NULL where the schema forbids one: the error `forEachItem` gives.
                        _ = try row.string(1)
                        _ = try row.string(2)
                        _ = try row.string(4)
                        return
                    }
                    let notes = row.textBytes(3)
                    guard UTF8Validation.isValid(email), UTF8Validation.isValid(title),
                        UTF8Validation.isValid(status), notes.map(UTF8Validation.isValid) ?? true
                    else {
                        let item = ExportedItem(
                            id: try row.int64(0), ownerEmail: try row.string(1), title: try row.string(2),
                            notes: row.optionalString(3), status: try row.string(4), priority: Int(try row.int64(5)),
                            createdAt: try row.int64(6), updatedAt: try row.int64(7))
                        try ExportedItemText.withText(of: item, body)
                        return
                    }
                    try body(
                        ExportedItemText(
                            id: try row.int64(0), ownerEmail: email, title: title, notes: notes, status: status,
                            priority: Int(try row.int64(5)), createdAt: try row.int64(6), updatedAt: try row.int64(7)))
                }
            }
        }
    }
}

extension ExportedItemText {
    /// Calls `body` with `item`'s text as bytes.
    package static func withText(of item: ExportedItem, _ body: (ExportedItemText) throws -> Void) throws {
        var email = item.ownerEmail
        var title = item.title
        var status = item.status
        var notes = item.notes
        try email.withUTF8 { email in
            try title.withUTF8 { title in
                try status.withUTF8 { status in
                    func call(_ notes: UnsafeBufferPointer<UInt8>?) throws {
                        try body(
                            ExportedItemText(
                                id: item.id, ownerEmail: email, title: title, notes: notes, status: status,
                                priority: item.priority, createdAt: item.createdAt, updatedAt: item.updatedAt))
                    }
                    if notes == nil {
                        try call(nil)
                    } else {
                        try notes?.withUTF8 { try call($0) }
                    }
                }
            }
        }
    }
}
