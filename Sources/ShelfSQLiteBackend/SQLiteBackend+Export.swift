internal import ShelfSQLite
internal import ShelfStore

extension SQLiteBackend {
    /// The SELECT of an items export: the columns of `ExportedItem`, in order, by ID. With
    /// `ownerIDs`, the second column is the owner's ID instead of its email (joined from users),
    /// for a caller that looks emails up itself (`OwnerEmails`).
    static func exportSQL(matching query: ItemQuery, ownerIDs: Bool = false) -> (String, [any SQLBindable]) {
        let (filter, arguments) = exportFilter(matching: query)
        let sql =
            ownerIDs
            ? """
            SELECT i.id, i.user_id, i.title, i.notes, i.status, i.priority, i.created_at, i.updated_at
            FROM items i\(filter) ORDER BY i.id
            """
            : """
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
        // Counted among the items the query selects only: said so, not as the store's total
        // (hostile round 12 read "holds 3 items" of a store that held more).
        let said =
            filter.isEmpty
            ? "\(location) holds \(Store.orphansListed([("items", Int(found.count))])) whose user is gone (\(example), "
                + "who no longer exists)"
            : "\(found.count) of the items this query selects in \(location) "
                + (found.count == 1 ? "names a user who is" : "name users who are") + " gone (\(example), who no "
                + "longer exists; items the query does not select were not counted)"
        throw StoreError(
            .invalidValue,
            said + ": another program deleted users with foreign keys off. Rather than leave "
                + "\(found.count == 1 ? "it" : "them") out without a word, shelf read none of the items. "
                + "`sqlite3 \(ShellQuoting.quoted(location)) 'PRAGMA foreign_key_check(items)'` lists every one"
                + (filter.isEmpty ? "" : " in the whole store")
                + ": delete them or point them at an existing user, then try again")
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
    /// Keeps the checked emails in `emails` as it goes (`OwnerEmails.add`), when given.
    private func refuseMistypedUsers(on connection: Connection, keeping emails: inout OwnerEmails?) throws {
        try StoredValueCheck.refuseMistyped(.users, on: connection, location: location, action: "try")
        let statement = try StoreError.translating { try connection.makeStatement("SELECT id, name, email FROM users") }
        try StoreError.translating {
            try statement.forEachRow { row in
                let id = try row.int64(0)
                for (index, column) in [(Int32(1), "name"), (2, "email")] {
                    try StoredValueCheck.refuseMalformed(
                        row.textBytes(index), .users, id: id, column: column, location: location, action: "try")
                }
                if var kept = emails, let email = row.textBytes(2) {
                    emails = nil  // `kept` alone holds its storage: no copy below
                    if kept.add(id: id, email: email) { emails = kept }
                }
            }
        }
    }

    private func refuseMistypedUsers(on connection: Connection) throws {
        var none: OwnerEmails?
        try refuseMistypedUsers(on: connection, keeping: &none)
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
    ///
    /// Owners' emails come from the users read once for their check (`OwnerEmails`), not from
    /// a join to every item (a B-tree seek per row, an eighth of an export's time), unless
    /// there are more users than `OwnerEmails.limit`.
    func forEachItemText(matching query: ItemQuery, _ body: (ExportedItemText) throws -> Void) throws {
        try database.read { connection in
            // Every item's owner is among the users read below: checked in this read, before
            // any row, by reading every item only when the totals by owner do not rule it out.
            let totalsRuleOutOrphans = (try? ownerTotalsNameAMissingUser(on: connection)) == false
            if !totalsRuleOutOrphans { try refuseOrphans(matching: query, on: connection) }
            var owners: OwnerEmails? = OwnerEmails()
            try refuseMistypedUsers(on: connection, keeping: &owners)
            let joined = owners == nil
            // The join would leave out, without a word, what totals out of step missed.
            if joined, totalsRuleOutOrphans { try refuseOrphans(matching: query, on: connection) }
            let (sql, arguments) = Self.exportSQL(matching: query, ownerIDs: !joined)
            let statement = try StoreError.translating { try connection.makeStatement(sql) }
            try (owners ?? OwnerEmails()).withLookup { ownerEmail in
                try StoreError.translating {
                    try statement.bind(arguments: arguments)
                    try statement.forEachRow { row in
                        let ownerEmail = joined ? row.textBytes(1) : ownerEmail(try row.int64(1))
                        guard let email = ownerEmail, let title = row.textBytes(2), let status = row.textBytes(4)
                        else {
                            // A NULL where the schema forbids one: the error `forEachItem` gives.
                            if joined { _ = try row.string(1) } else { try ownerGone(row) }
                            _ = try row.string(2)
                            _ = try row.string(4)
                            return
                        }
                        try item(row, email: email, title: title, status: status, on: connection, body)
                    }
                }
            }
        }
    }

    /// `forEachItemText`'s checks and call for one row.
    @inline(__always)
    private func item(
        _ row: Row, email: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        status: UnsafeBufferPointer<UInt8>, on connection: Connection, _ body: (ExportedItemText) throws -> Void
    ) throws {
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

    /// Whether the item totals by owner (`shelf_item_counts` kind `o`, which the items'
    /// triggers keep whoever writes) count items of an owner who is not a user: one read of a
    /// few rows per user, where `refuseOrphans` reads every item (a tenth of an export's time).
    /// False means no item's user is gone, so the export skips that scan; were the totals ever
    /// out of step, a row whose owner is not among the users read still stops the export
    /// (`ownerGone`), so none is left out or written without an owner.
    private func ownerTotalsNameAMissingUser(on connection: Connection) throws -> Bool {
        try connection.fetchOne(
            "SELECT 1 FROM shelf_item_counts WHERE kind = 'o' AND n <> 0 AND bucket NOT IN (SELECT id FROM users) "
                + "LIMIT 1", row: { _ in true }) ?? false
    }

    /// Throws for a row whose owner is not among the users read, which `refuseOrphans` or the
    /// totals (`ownerTotalsNameAMissingUser`), in the same read, rule out.
    private func ownerGone(_ row: Row) throws {
        throw StoreError(
            .invalidValue,
            "item \(try row.int64(0)) in \(location) names user \(try row.int64(1)), who no longer exists: another "
                + "program deleted users with foreign keys off. `sqlite3 \(ShellQuoting.quoted(location)) "
                + "'PRAGMA foreign_key_check(items)'` lists every such item: delete them or point them at an existing "
                + "user, then try again")
    }
}

/// Users' emails by ID, kept from the users an items export reads for their check, so that
/// each item's owner is looked up here rather than joined from users by SQLite. At most
/// `limit` users (a few MB): past that, `add` says no and the export joins as before, so
/// memory stays flat whatever the number of users.
struct OwnerEmails {
    static let limit = 100_000
    private var bytes: [UInt8] = []
    /// Where each email starts in `bytes`, and its length.
    private var places: [Int64: (start: Int, count: Int)] = [:]

    /// Keeps `email` for user `id`; false once there are more than `limit` users.
    mutating func add(id: Int64, email: UnsafeBufferPointer<UInt8>) -> Bool {
        guard places.count < Self.limit else { return false }
        places[id] = (bytes.count, email.count)
        bytes.append(contentsOf: email)
        return true
    }

    /// Calls `body` with a lookup of emails by user ID, whose buffers stay valid during the call.
    func withLookup<T>(_ body: ((Int64) -> UnsafeBufferPointer<UInt8>?) throws -> T) throws -> T {
        try bytes.withUnsafeBufferPointer { buffer in
            // No bytes (no users, or empty emails) still needs a base for empty buffers.
            let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)
            return try body { id in
                guard let place = places[id], let base else { return nil }
                return UnsafeBufferPointer(start: base + place.start, count: place.count)
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
