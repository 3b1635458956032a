internal import Foundation
internal import ShelfSQLite
internal import ShelfStore

/// `ItemRepository` over a SQLite `Store`: writes go through the single writer connection,
/// reads through the reader pool, so reads proceed during a long write.
final class SQLiteItemRepository: ItemRepository {
    let database: Database
    /// The fewest items a bulk change writes to set the changed columns' indexes aside
    /// (`Store.Configuration.bulkActionMinimumRows`).
    let bulkMinimumRows: Int64

    init(database: Database, bulkMinimumRows: Int64 = 10_000) {
        self.database = database
        self.bulkMinimumRows = bulkMinimumRows
    }

    private static let insertSQL = """
        INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
        VALUES (?, ?, ?, ?, ?, ?, ?, 1)
        """

    /// Stores a new item (version 1) in its own write transaction and returns its ID.
    /// `createdAt` and `updatedAt` are the item's `createdAt`, or now when it is nil.
    /// - Throws: `StoreError` `.unknownUser`, `.invalidValue`, `.busy` when another process
    ///   holds the write lock past the busy timeout. Nothing is stored when it throws.
    @discardableResult
    public func insert(_ item: NewItem) async throws -> Item.ID {
        try await insert(contentsOf: [item])[0]
    }

    /// Stores all `items` in one write transaction and returns their IDs in the same order.
    /// When one is refused, none is stored and the error's message starts with its position
    /// ("item 3 of 10: …"). Live queries see the whole batch at once, or nothing.
    @discardableResult
    public func insert(contentsOf items: [NewItem]) async throws -> [Item.ID] {
        for (offset, item) in items.enumerated() {
            try TextLimits.check(
                title: item.title, notes: item.notes,
                subject: items.count == 1 ? nil : "item \(offset + 1) of \(items.count)")
        }
        return try await database.storeWrite { connection in
            let now = Date().sqlMillisecondPrecision
            var ids: [Item.ID] = []
            ids.reserveCapacity(items.count)
            for (offset, item) in items.enumerated() {
                try StoreError.translating(subject: items.count == 1 ? nil : "item \(offset + 1) of \(items.count)") {
                    let created = item.createdAt ?? now
                    try connection.run(
                        Self.insertSQL, item.userID, item.title, item.notes, item.status, item.priority, created,
                        created)
                }
                ids.append(Item.ID(connection.lastInsertRowID))
            }
            return ids
        }
    }

    /// Saves `item`'s fields if the stored item is still at `item.version`, and returns the
    /// stored item: version + 1, `updatedAt` now (never earlier than before).
    /// - Throws: `StoreError` `.conflict` when the stored version differs, `.notFound` when the
    ///   item was deleted, `.unknownUser`, `.invalidValue`. Nothing is written when it throws.
    public func update(_ item: Item) async throws -> Item {
        try TextLimits.check(title: item.title, notes: item.notes)
        return try await database.storeWrite { connection in
            try StoreError.translating {
                try connection.run(
                    """
                    UPDATE items SET user_id = ?, title = ?, notes = ?, status = ?, priority = ?,
                        updated_at = max(?, updated_at), version = version + 1
                    WHERE id = ? AND version = ?
                    """,
                    item.userID, item.title, item.notes, item.status, item.priority, Date(), item.id, item.version)
                if connection.changes == 0 {
                    guard let stored = try Self.item(id: item.id, connection) else {
                        throw StoreError(
                            .notFound, "item \(item.id) does not exist (it may have been deleted); reload the list")
                    }
                    throw StoreError(
                        .conflict,
                        "item \(item.id) was changed elsewhere (you edited version \(item.version), the store has "
                            + "version \(stored.version)); reload it and apply your change again")
                }
                guard let updated = try Self.item(id: item.id, connection) else {
                    throw StoreError(.notFound, "item \(item.id) vanished during its update")
                }
                return updated
            }
        }
    }

    /// Deletes the item with `id`.
    /// - Throws: `StoreError` `.notFound` when no such item exists.
    public func delete(id: Item.ID) async throws {
        let deleted = try await deleteItems(ids: [id])
        if deleted == 0 {
            throw StoreError(.notFound, "item \(id) does not exist (it may have been deleted already)")
        }
    }

    /// Deletes `item` if the stored row is still at its version and owner (compare-and-set in
    /// the DELETE, so a change committed since `item` was read is never deleted unseen).
    /// - Throws: `StoreError` `.conflict` when the version or owner differs, `.notFound`.
    public func delete(_ item: Item) async throws {
        try await database.storeWrite { connection in
            try StoreError.translating {
                try connection.run(
                    "DELETE FROM items WHERE id = ? AND version = ? AND user_id = ?", item.id, item.version,
                    item.userID)
                guard connection.changes == 0 else { return }
                guard let stored = try Self.item(id: item.id, connection) else {
                    throw StoreError(.notFound, "item \(item.id) does not exist (it may have been deleted already)")
                }
                throw StoreError(
                    .conflict,
                    "item \(item.id) was changed elsewhere (you read version \(item.version), the store has "
                        + "version \(stored.version)); nothing was deleted: reload it and delete it again if you "
                        + "still mean to")
            }
        }
    }

    /// Deletes every item of `ids` that exists, in one write transaction, and returns how many
    /// were deleted; IDs that do not exist are skipped, not an error.
    public func deleteItems(ids: [Item.ID]) async throws -> Int {
        try await database.storeWrite { connection in
            try StoreError.translating {
                var deleted = 0
                for id in ids {
                    try connection.run("DELETE FROM items WHERE id = ?", id)
                    deleted += connection.changes
                }
                return deleted
            }
        }
    }

    /// The item with `id`, or nil, read from a reader connection (it sees the last committed
    /// write, never a write in progress).
    public func item(id: Item.ID) async throws -> Item? {
        let location = database.path ?? "a private in-memory database"
        return try await database.storeRead { connection in
            try StoreError.translating { try Self.checkedItem(id: id, connection, location: location) }
        }
    }

    /// Up to `limit` items (all when nil) matching `query`, in its order, starting just after
    /// `cursor` (from the first when nil). The rows come from one statement, which reads one
    /// snapshot, so the page is consistent; the cost does not grow with the cursor's position.
    /// (No explicit transaction around it: the statements that pick the plan change its cost,
    /// never its rows, and BEGIN and ROLLBACK cost a page read a few per cent.)
    public func items(matching query: ItemQuery, after cursor: ItemCursor?, limit: Int?) async throws -> [Item] {
        try await database.storeRead(transaction: false) { connection in
            try StoreError.translating {
                try Self.page(query, cursor: cursor, backward: false, limit: limit, connection)
            }
        }
    }

    /// Up to `limit` items matching `query` that come just before `cursor` (the last ones when
    /// nil), returned in the query's order. One statement, so one snapshot (as the forward read).
    public func items(matching query: ItemQuery, before cursor: ItemCursor?, limit: Int) async throws -> [Item] {
        try await database.storeRead(transaction: false) { connection in
            try StoreError.translating {
                try Self.page(query, cursor: cursor, backward: true, limit: limit, connection)
            }
        }
    }

    /// How many items matching `query` come before `cursor` in its order, counted in one
    /// read transaction: the rows a backward read from `cursor` would return.
    public func count(matching query: ItemQuery, before cursor: ItemCursor) async throws -> Int {
        try await database.storeRead { connection in
            try StoreError.translating {
                let plan = try Self.matchPlan(query, limit: nil, connection)
                let page = query.pageSQL(cursor: cursor, backward: true, limit: nil, plan: plan)
                return try connection.fetchOne("SELECT count(*) FROM (\(page.text))", arguments: page.arguments) {
                    try $0.get(0, as: Int.self)
                } ?? 0
            }
        }
    }

    /// How many items match `query`, counted in one read transaction.
    public func count(matching query: ItemQuery) async throws -> Int {
        try await database.storeRead { connection in
            try StoreError.translating { try Self.count(query, connection) }
        }
    }

    // MARK: Reads on a connection (shared with live queries)

    static func item(id: Item.ID, _ connection: Connection) throws -> Item? {
        try connection.fetchOne("SELECT \(ItemQuery.itemColumns) FROM items WHERE id = ?", id, row: Item.init(row:))
    }

    /// `item(id:_:)` for a person to see (`item(id:)`, `liveItem(id:)`: `items show`, the
    /// browser's detail): a row holding a value of the wrong type, or text that is not UTF-8,
    /// is refused (`StoredValueCheck`, the rule copies and exports apply) rather than shown as
    /// what reading it makes up. Pages of the list are read as they are (one bad row must not
    /// keep a list from showing); the detail of that row says what is wrong.
    static func checkedItem(id: Item.ID, _ connection: Connection, location: String) throws -> Item? {
        try StoredValueCheck.refuseMistyped(.items, id: id.rawValue, on: connection, location: location, action: "try")
        _ = try connection.fetchOne("SELECT title, notes FROM items WHERE id = ?", id) { row in
            for (index, column) in [(Int32(0), "title"), (1, "notes")] {
                try StoredValueCheck.refuseMalformed(
                    row.textBytes(index), .items, id: id.rawValue, column: column, location: location, action: "try")
            }
        }
        return try item(id: id, connection)
    }

    static func page(
        _ query: ItemQuery, cursor: ItemCursor?, backward: Bool, limit: Int?, _ connection: Connection
    ) throws -> [Item] {
        // SQLite reads a negative LIMIT as "no limit": refuse it rather than read everything.
        if let limit, limit < 0 {
            throw StoreError(.invalidValue, "a page limit must be 0 or more, not \(limit)")
        }
        // The text is parsed once for the plan and the SQL.
        let parsed = ItemQueryText(query.text)
        let plan = try matchPlan(query, limit: limit, connection, parsed: parsed)
        let now = Date()
        let walk = try walksPastTimes(query, limit: limit, now: now, connection, parsed: parsed)
        let sql = query.pageSQL(
            cursor: cursor, backward: backward, limit: limit, plan: plan, walkPastTimes: walk, now: now, parsed: parsed)
        let statement = try connection.cachedStatement(sql.text)
        try statement.bind(arguments: sql.arguments)
        // The loop is written here rather than through the generic `Connection.fetch`, so the
        // compiler specializes it for `Item` (this is the hot path of every list).
        var items: [Item] = []
        if let limit { items.reserveCapacity(limit) }
        try statement.forEachRow { items.append(try Item(row: $0)) }
        return backward ? items.reversed() : items
    }

    /// How to read a page of `query` (see `ItemQuery.MatchPlan`), by how common its words are.
    ///
    /// Walking the sort index reads about `limit × total / matches` rows until the page is
    /// full; matching first reads and orders every match, at a few times the cost per row.
    /// The two meet near `matches = sqrt(limit × total / 4)`: a probe counts matches up to that
    /// many (cheap: it stops there) and picks a walk when it reaches it. Other filters only
    /// thin the walk further, so with them the threshold is doubled. Measured at 1,000,000
    /// items: Benchmarks, `store.search`.
    /// `parsed`, when given, must be `ItemQueryText(query.text)`.
    static func matchPlan(
        _ query: ItemQuery, limit: Int?, _ connection: Connection, parsed: ItemQueryText? = nil
    ) throws -> ItemQuery.MatchPlan {
        let parsed = parsed ?? ItemQueryText(query.text)
        // No words or phrases to match (every filter is a plain WHERE clause): nothing to plan.
        if parsed.included.isEmpty { return .walk }
        let filter = query.sqliteFilter(parsed: parsed)
        guard let match = filter.match else { return .walk }
        guard let limit else { return .matchFirst }
        let total =
            try connection.fetchOne(
                "SELECT row_count FROM shelf_changes WHERE table_name = 'items'", row: { try $0.get(0, as: Int.self) })
            ?? 0
        var threshold = max(64, Int((Double(max(limit, 1)) * Double(total) / 4).squareRoot()))
        if !filter.clauses.isEmpty { threshold *= 2 }
        let found = try connection.fetchOne(
            "SELECT count(*) FROM (SELECT 1 FROM items_fts WHERE items_fts MATCH ? LIMIT ?)",
            arguments: [match, threshold], row: { try $0.get(0, as: Int.self) })
        guard (found ?? 0) >= threshold else { return .matchFirst }
        return FullTextQuery.isCheapToProbe(parsed.included, parsed.excluded) ? .walk : .walkOverMatches
    }

    /// Whether a page of `query` walks its sort order's index past the items outside its
    /// ranges of times (the unary + of `ItemQuery.sqliteFilter(walkPastTimes:)`), rather than
    /// read those ranges and sort them: asked when the query, with no owner and no words, has a
    /// range on a time it is not sorted by (`created:<2021-01-01` by priority).
    ///
    /// The costs are those of `matchPlan`: a walk reads about `limit × total / matches` rows,
    /// reading the range reads and sorts every match. A probe counts each range's items
    /// through its time's index, up to `sqrt(limit × total / 4)` (it stops there), and the page
    /// walks when every range reaches it. Left to itself the planner read a wide range and
    /// sorted it in the arms of a merged page (`status:open created:>2021-03-01` by title:
    /// 124 ms of CPU at 1,000,000 items, 0.3 ms walking). A walk is still slow when the
    /// items outside the range come first in the sort order (`created:<2021-01-01`, newest
    /// updated first): no index orders one column within a range of another.
    static func walksPastTimes(
        _ query: ItemQuery, limit: Int?, now: Date, _ connection: Connection, parsed: ItemQueryText
    ) throws -> Bool {
        guard let limit, query.owner == nil, query.sortField != .owner, parsed.included.isEmpty else { return false }
        let sortColumn = ItemQuery.sortColumn(query.sortField)
        let ranges = query.timeRanges(now: now, parsed: parsed).filter { $0.column != sortColumn }
        guard !ranges.isEmpty else { return false }
        let total =
            try connection.fetchOne(
                "SELECT row_count FROM shelf_changes WHERE table_name = 'items'", row: { try $0.get(0, as: Int.self) })
            ?? 0
        let threshold = max(64, Int((Double(max(limit, 1)) * Double(total) / 4).squareRoot()))
        for (column, range) in ranges {
            var tests: [String] = []
            var arguments: [any SQLBindable] = []
            if let lower = range.lower {
                tests.append("\(column) >= ?")
                arguments.append(lower)
            }
            if let upper = range.upper {
                tests.append("\(column) < ?")
                arguments.append(upper)
            }
            let within = tests.isEmpty ? "" : " WHERE " + tests.joined(separator: " AND ")
            let found = try connection.fetchOne(
                "SELECT count(*) FROM (SELECT 1 FROM items\(within) LIMIT ?)",
                arguments: arguments + [threshold], row: { try $0.get(0, as: Int.self) })
            guard (found ?? 0) >= threshold else { return false }
        }
        return true
    }

    static func count(_ query: ItemQuery, _ connection: Connection) throws -> Int {
        let sql = query.countSQL()
        return try connection.fetchOne(sql.text, arguments: sql.arguments) { try $0.get(0, as: Int.self) } ?? 0
    }
}
