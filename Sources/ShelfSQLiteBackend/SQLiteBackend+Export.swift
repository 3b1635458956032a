internal import ShelfSQLite
internal import ShelfStore

extension SQLiteBackend {
    /// The SELECT of an items export: the columns of `ExportedItem`, in order, by ID.
    static func exportSQL(matching query: ItemQuery) -> (String, [any SQLBindable]) {
        let (filter, arguments) = exportFilter(matching: query)
        let sql = """
            SELECT i.id, u.email, i.title, i.notes, i.status, i.priority, i.created_at, i.updated_at
            FROM items i JOIN users u ON u.id = i.user_id\(filter) ORDER BY i.id
            """
        return (sql, arguments)
    }

    /// Refuses, before any item is read, a read of every item a selection holds (`forEachItem`:
    /// exports, `shelf items list`) when one of them names a user that is gone (another program
    /// deleted users with foreign keys off): the join would leave it out without a word, and
    /// kept without an owner it could not be imported. Run in the read's own transaction, so
    /// it sees the rows the read reads. The message says what was found and what to do; it
    /// says nothing of writing (the caller may be a read: an export adds what it did not write).
    func refuseOrphans(matching query: ItemQuery, on connection: Connection) throws {
        let (filter, arguments) = Self.exportFilter(matching: query)
        let condition = filter.isEmpty ? " WHERE " : filter + " AND "
        let statement = try StoreError.translating {
            try connection.makeStatement(
                "SELECT i.id, i.user_id, (SELECT count(*) FROM items i\(condition)i.user_id NOT IN (SELECT id FROM users)) "
                    + "FROM items i\(condition)i.user_id NOT IN (SELECT id FROM users) ORDER BY i.id LIMIT 1")
        }
        var found: (id: Int64, owner: Int64, count: Int64)?
        try StoreError.translating {
            try statement.bind(arguments: arguments + arguments)
            try statement.forEachRow { row in found = (try row.int64(0), try row.int64(1), try row.int64(2)) }
        }
        guard let found else { return }
        let example =
            (found.count > 1 ? "the first, item \(found.id)," : "item \(found.id)") + " names user \(found.owner)"
        throw StoreError(
            .invalidValue,
            "\(location) holds \(Store.orphansListed([("items", Int(found.count))])) whose user is gone (\(example), "
                + "who no longer exists): another program deleted users with foreign keys off. Rather than leave "
                + "\(found.count == 1 ? "it" : "them") out without a word, shelf read none of the items. "
                + "`sqlite3 \(ShellQuoting.quoted(location)) 'PRAGMA foreign_key_check(items)'` lists every one: "
                + "delete them or point them at an existing user, then try again")
    }

    /// Refuses, before any item is read, users holding a value of the wrong type
    /// (`StoredValueCheck`, the rule `shelf copy` applies): read as their kind they would be
    /// made-up values (text in a time read as 1970, 2.5 as 2). Items are checked row by row.
    private func refuseMistyped(on connection: Connection) throws {
        try refuseMistypedUsers(on: connection)
    }

    /// Throws, naming the row and what it holds, unless every column of the current row of an
    /// items export (`exportSQL`) holds its kind (`StoredValueCheck`): one C call per column,
    /// in the export's loop, instead of a scan of every item before it (which cost a third of
    /// `sqlite3 -csv`'s time).
    @inline(__always)
    private func refuseMistyped(_ row: Row, id: Int64, on connection: Connection) throws {
        guard StoredValueCheck.holds(row, 2, .text), StoredValueCheck.holds(row, 3, .text, nullable: true),
            StoredValueCheck.holds(row, 4, .text), StoredValueCheck.holds(row, 5, .integer),
            StoredValueCheck.holds(row, 6, .integer), StoredValueCheck.holds(row, 7, .integer)
        else {
            try StoredValueCheck.refuseMistyped(.items, id: id, on: connection, location: location, action: "try")
            throw StoreError(.invalidValue, "item \(id) in \(location) holds a value of the wrong type; correct it")
        }
    }

    /// `refuseMistyped` for users, whose names and emails are checked to be UTF-8 here too (a
    /// few thousand rows at most; an items export writes owners' emails from them).
    private func refuseMistypedUsers(on connection: Connection) throws {
        try StoredValueCheck.refuseMistyped(.users, on: connection, location: location, action: "try")
        let statement = try StoreError.translating { try connection.makeStatement("SELECT id, name, email FROM users") }
        try StoreError.translating {
            try statement.forEachRow { row in
                let id = try row.int64(0)
                for (index, column) in [(Int32(1), "name"), (2, "email")] {
                    try StoredValueCheck.refuseMalformed(
                        row.textBytes(index), .users, id: id, column: column, location: location, action: "try")
                }
            }
        }
    }

    /// `StoredValueCheck.refuseMalformed` for a text column of an item.
    @inline(__always)
    private func refuseMalformed(_ bytes: UnsafeBufferPointer<UInt8>?, id: Int64, column: String) throws {
        try StoredValueCheck.refuseMalformed(bytes, .items, id: id, column: column, location: location, action: "try")
    }

    /// The WHERE clause (with its leading space, or empty) and arguments of an items export.
    private static func exportFilter(matching query: ItemQuery) -> (String, [any SQLBindable]) {
        // Every term of the query language, as the list's pages read it (but by ID).
        var parsed = query.sqliteFilter(alias: "i.", forPage: false)
        if let match = parsed.match {
            parsed.clauses.append("i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            parsed.arguments.append(match)
        }
        let filter = parsed.clauses.isEmpty ? "" : " WHERE " + parsed.clauses.joined(separator: " AND ")
        return (filter, parsed.arguments)
    }

    /// Calls `body` with every user, by ID (or by name, as `users()` orders them, when
    /// `orderedByName`), from one snapshot. Blocks the calling thread for the whole read;
    /// writes proceed meanwhile. Errors are `StoreError`s, or what `body` throws.
    func forEachUser(orderedByName: Bool, _ body: (ExportedUser) throws -> Void) throws {
        try database.read { connection in
            try refuseMistypedUsers(on: connection)
            let order = orderedByName ? SQLiteUserRepository.nameOrder : "id"
            let statement = try StoreError.translating {
                try connection.makeStatement("SELECT id, name, email, created_at FROM users ORDER BY \(order)")
            }
            try StoreError.translating {
                try statement.forEachRow { row in
                    try body(
                        ExportedUser(
                            id: try row.int64(0), name: try row.string(1), email: try row.string(2),
                            createdAt: try row.int64(3)))
                }
            }
        }
    }

    /// Calls `body` with every item that `query`'s owner, status and text select (its order
    /// is ignored: items come by ID), from one snapshot. Blocks the calling thread for the
    /// whole read; writes proceed meanwhile.
    func forEachItem(matching query: ItemQuery, _ body: (ExportedItem) throws -> Void) throws {
        let (sql, arguments) = Self.exportSQL(matching: query)
        try database.read { connection in
            try refuseOrphans(matching: query, on: connection)
            try refuseMistyped(on: connection)
            let statement = try StoreError.translating { try connection.makeStatement(sql) }
            try StoreError.translating {
                try statement.bind(arguments: arguments)
                try statement.forEachRow { row in
                    let id = try row.int64(0)
                    try refuseMistyped(row, id: id, on: connection)
                    try refuseMalformed(row.textBytes(2), id: id, column: "title")
                    try refuseMalformed(row.textBytes(3), id: id, column: "notes")
                    try body(
                        ExportedItem(
                            id: id, ownerEmail: try row.string(1), title: try row.string(2),
                            notes: row.optionalString(3), status: try row.string(4), priority: Int(try row.int64(5)),
                            createdAt: try row.int64(6), updatedAt: try row.int64(7)))
                }
            }
        }
    }
}

extension SQLiteBackend {
    /// The database's own bytes, which must be well-formed UTF-8: other bytes are refused
    /// (`StoredValueCheck`), as `forEachItem` refuses them, rather than repaired.
    func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws {
        let (sql, arguments) = Self.exportSQL(matching: query)
        try database.read { connection in
            try refuseOrphans(matching: query, on: connection)
            try refuseMistyped(on: connection)
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
                    let id = try row.int64(0)
                    try refuseMistyped(row, id: id, on: connection)
                    // Checked in place (owners' emails were checked with the users).
                    try refuseMalformed(title, id: id, column: "title")
                    try refuseMalformed(notes, id: id, column: "notes")
                    try refuseMalformed(status, id: id, column: "status")
                    try body(
                        ExportedItemText(
                            id: id, ownerEmail: email, title: title, notes: notes, status: status,
                            priority: Int(try row.int64(5)), createdAt: try row.int64(6), updatedAt: try row.int64(7)))
                }
            }
        }
    }
}

extension SQLiteBackend {
    /// One lookup of the counter the triggers keep.
    func exportUserCount() async throws -> Int? {
        try await database.storeRead { connection in
            try StoreError.translating {
                try connection.fetchOne(
                    "SELECT row_count FROM shelf_changes WHERE table_name = 'users'",
                    row: { try $0.get(0, as: Int.self) }
                ) ?? 0
            }
        }
    }
}

extension SQLiteBackend {
    func restoreSavedViews(_ views: [SavedView]) throws {
        try StoreError.translating {
            try database.write { connection in try SQLiteSavedViewRepository.restore(views, connection) }
        }
    }
}
