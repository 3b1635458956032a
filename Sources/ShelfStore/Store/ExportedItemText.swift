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

    package init(
        id: Int64, ownerEmail: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        notes: UnsafeBufferPointer<UInt8>?, status: UnsafeBufferPointer<UInt8>, priority: Int, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.ownerEmail = ownerEmail
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
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
