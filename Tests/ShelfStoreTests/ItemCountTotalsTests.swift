import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Migrations 0016_item_counts and 0017_item_counts_by_owner: counts filtered by status,
/// priority and a time range, or by owner, status and priority, add up the trigger-kept totals
/// of `shelf_item_counts`, and must equal a count over the items table
/// after every kind of write, Shelf's and other programs' (REPLACE, IGNORE, upserts, an ID
/// moved, a time that is not an integer).
@Suite("Item count totals (SQLite)")
struct ItemCountTotalsTests {
    /// A span of `shelf_item_counts` in milliseconds.
    static let span: Int64 = 1 << ItemQuery.countSpanShift
    static let base: Int64 = 1_700_000_000_000
    /// When the ages are counted from.
    static let now = Date(timeIntervalSince1970: Double(base + 40 * span) / 1000)

    /// Queries every shape of which uses the totals, and some that do not.
    static let queries: [String] = [
        "", "status:open", "status:done", "prio:3", "prio:>=2", "prio:<1", "status:open prio:3",
        "status:done prio:3", "created:>5d", "created:<10d", "updated:<3d", "created:>30d",
        "status:open created:>2d", "prio:>=2 updated:<20d", "created:2023-11-20", "created:>=2023-11-15",
        "updated:<2023-11-20", "status:done updated:>=2023-11-16 updated:<2023-11-25",
        "created:>1000000d", "status:open status:done", "created:>5d updated:<3d", "created:=3d",
        "prio:1 created:2023-11-20T12:00:00Z", "status:open created:>=2023-11-20 created:<=2023-11-21",
        // By owner (Migrations/0017), and an owner with a time (the plain count).
        "@ann", "@b status:done", "@a prio:>=2", "@ann @bob status:open prio:1", "@nobody", "@ann created:>5d",
    ]

    /// The count of `text` over the items table, written out here (not the store's SQL).
    static func plainCount(_ connection: Connection, _ query: ItemQuery) throws -> Int {
        let filter = query.sqliteFilter(alias: "", now: now, forPage: false)
        let sql =
            "SELECT count(*) FROM items" + (filter.clauses.isEmpty ? "" : " WHERE ")
            + filter.clauses.joined(separator: " AND ")
        return try connection.fetchOne(sql, arguments: filter.arguments) { try $0.get(0, as: Int.self) } ?? -1
    }

    /// The totals that differ from a count of the table, one line each ("KIND BUCKET STATUS
    /// PRIORITY: N against COUNTED").
    static let driftSQL = """
        SELECT t.kind || ' ' || t.bucket || ' ' || t.status || ' ' || t.priority || ': ' || t.n || ' against '
            || coalesce(r.n, 0)
        FROM shelf_item_counts t LEFT JOIN (
            SELECT 'c' AS kind, CASE WHEN typeof(created_at) = 'integer' THEN created_at >> 26 ELSE 'other' END
                AS bucket, status, priority, count(*) AS n FROM items GROUP BY 2, 3, 4
            UNION ALL
            SELECT 'u', CASE WHEN typeof(updated_at) = 'integer' THEN updated_at >> 26 ELSE 'other' END,
                status, priority, count(*) FROM items GROUP BY 2, 3, 4
            UNION ALL
            SELECT 'o', user_id, status, priority, count(*) FROM items GROUP BY 2, 3, 4
        ) r USING (kind, bucket, status, priority)
        WHERE t.n IS NOT coalesce(r.n, 0)
        """

    /// Every query's count through the store equals the plain count, and the totals equal a
    /// count of the table by span.
    static func check(_ sqlite: SQLiteBackend, _ step: String) async throws {
        let owners = try await sqlite.database.read { connection in
            try connection.fetch("SELECT id FROM users") { try $0.int64(0) }
        }
        var queries = Self.queries.map { ItemQuery(text: $0) }
        for owner in owners {
            queries += [
                ItemQuery(owner: User.ID(owner)), ItemQuery(owner: User.ID(owner), text: "status:done prio:>=1"),
            ]
        }
        for var each in queries {
            each.agesFrom = now
            let query = each
            let counted = try await sqlite.sqliteItems.count(matching: query)
            let expected = try await sqlite.database.read { try plainCount($0, query) }
            #expect(
                counted == expected, "after \(step): '\(query.text)' counted \(counted), the table holds \(expected)")
        }
        let drift = try await sqlite.database.read { connection in
            try connection.fetch(driftSQL) { try $0.string(0) }
        }
        let total = try await sqlite.database.read { connection in
            try connection.fetchOne(
                "SELECT (SELECT coalesce(sum(n), 0) FROM shelf_item_counts WHERE kind = 'c') = (SELECT count(*) FROM items)"
            ) { try $0.int64(0) }
        }
        #expect(drift.isEmpty && total == 1, "after \(step): totals differ from the table: \(drift)")
    }

    @Test func countsEqualTheTableAfterEveryKindOfWrite() async throws {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        var generator = SeededRandomNumberGenerator(seed: 16)
        func randomTime() -> Int64 { Self.base + Int64.random(in: 0..<(40 * Self.span), using: &generator) }
        let items = (0..<2_000).map { _ in
            NewItem(
                userID: Bool.random(using: &generator) ? ann : bob, title: "item",
                status: Bool.random(using: &generator) ? .open : .done,
                priority: Int.random(in: 0...3, using: &generator),
                createdAt: Date(timeIntervalSince1970: Double(randomTime()) / 1000))
        }
        _ = try await store.items.insert(contentsOf: items)
        try await Self.check(sqlite, "inserting 2,000 items")

        // Shelf's own writes: updates of status and priority, deletes.
        var stored = try await store.items.items(matching: ItemQuery(), after: nil, limit: 200)
        for item in stored.prefix(100) {
            var changed = item
            changed.status = item.status == .open ? .done : .open
            changed.priority = (item.priority + 1) % 4
            _ = try await store.items.update(changed)
        }
        for item in stored.suffix(50) { try await store.items.delete(id: item.id) }
        try await Self.check(sqlite, "Shelf's updates and deletes")

        // Another program's writes, with every conflict rule and a time that is not an integer.
        stored = try await store.items.items(matching: ItemQuery(), after: nil, limit: 20)
        let (a, b, c) = (stored[0].id.rawValue, stored[1].id.rawValue, stored[2].id.rawValue)
        let statements = [
            "UPDATE items SET created_at = \(randomTime()), updated_at = \(randomTime()) WHERE id % 7 = 0",
            "UPDATE items SET priority = 3, status = 'done' WHERE id % 11 = 0",
            "UPDATE items SET user_id = \(ann.rawValue) WHERE id % 5 = 0",
            "INSERT OR REPLACE INTO items (id, user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (\(a), \(ann.rawValue), 'replaced', 'done', 2, \(randomTime()), \(randomTime()))",
            "INSERT OR IGNORE INTO items (id, user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (\(b), \(ann.rawValue), 'ignored', 'done', 1, \(randomTime()), \(randomTime()))",
            "INSERT INTO items (id, user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (\(b), \(ann.rawValue), 'upsert', 'open', 0, \(randomTime()), \(randomTime())) "
                + "ON CONFLICT (id) DO UPDATE SET status = 'open', priority = 0",
            "INSERT INTO items (id, user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (\(b), \(ann.rawValue), 'nothing', 'open', 3, 1, 1) ON CONFLICT DO NOTHING",
            "UPDATE OR REPLACE items SET id = \(c) WHERE id = \(a)",
            "INSERT INTO items (user_id, title, status, priority, created_at, updated_at) "
                + "VALUES (\(bob.rawValue), 'new', 'open', 1, \(randomTime()), \(randomTime()))",
            "DELETE FROM items WHERE id % 13 = 0",
        ]
        for statement in statements {
            try await sqlite.database.write { try $0.execute(statement) }
            try await Self.check(sqlite, statement)
        }
        let (text, real) = (stored[5].id.rawValue, stored[6].id.rawValue)
        try await sqlite.database.write {
            try $0.execute("UPDATE items SET created_at = 'not a time' WHERE id = \(text)")
        }
        try await Self.check(sqlite, "a created_at that is text")
        let late = Self.base
        try await sqlite.database.write {
            try $0.execute("UPDATE items SET updated_at = 1.5 + \(late) WHERE id = \(real)")
        }
        try await Self.check(sqlite, "an updated_at that is not an integer")
        let gone = bob.rawValue
        try await sqlite.database.write { try $0.execute("DELETE FROM users WHERE id = \(gone)") }
        try await Self.check(sqlite, "deleting an owner (cascade)")
    }

    /// A priority of 2.5 (another program's write; the CHECK constraint allows it) is counted
    /// by `prio:2`, `prio:>=2` and `status:open`, so every page of those holds it too, in every
    /// ordering (the merged pages of `statusPriorityPairs` read whole priorities by equality).
    @Test func aPriorityBetweenWholeNumbersIsListedWhereItIsCounted() async throws {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        _ = try await store.items.insert(
            contentsOf: (0..<40).map { index in
                NewItem(
                    userID: ann, title: "item \(index)", status: index % 3 == 0 ? .done : .open, priority: index % 4)
            })
        try await sqlite.database.write {
            try $0.execute("UPDATE items SET priority = 2.5, status = 'open' WHERE id = 7")
        }
        for text in ["prio:2", "prio:>=2", "prio:<3", "status:open", "status:open prio:2", "prio:2 created:<1d"] {
            for field in ItemQuery.SortField.allCases {
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    var query = ItemQuery(text: text)
                    query.sortField = field
                    query.sortDirection = direction
                    let counted = try await store.items.count(matching: query)
                    let listed = try await store.items.items(matching: query, after: nil, limit: nil)
                    #expect(
                        listed.count == counted && listed.contains { $0.id.rawValue == 7 },
                        "'\(text)' by \(field) \(direction): counted \(counted), listed \(listed.count)")
                }
            }
        }
    }

    /// Paged in the priority order, an item of priority 2.5 shows once: its cursor gave 2,
    /// so the next page started before it and showed it again at the top (hostile tester,
    /// round 6), and backward pages from it skipped the items between.
    @Test func aPriorityBetweenWholeNumbersShowsOnceWhenPaged() async throws {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        _ = try await store.items.insert(
            contentsOf: (0..<12).map { NewItem(userID: ann, title: "item \($0)", priority: $0 % 4) })
        try await sqlite.database.write {
            try $0.execute("UPDATE items SET priority = 2.5 WHERE id IN (3, 8)")
            try $0.execute("UPDATE items SET priority = 0.5 WHERE id = 5")
        }
        for text in ["", "status:open", "prio:>=2", "item"] {
            for direction in [ItemQuery.SortDirection.ascending, .descending] {
                var query = ItemQuery(text: text)
                query.sortField = .priority
                query.sortDirection = direction
                let all = try await store.items.items(matching: query, after: nil, limit: nil).map(\.id)
                for size in 1...3 {
                    var forward: [Item] = []
                    // Bounded: a page that repeats the cursor's item would never end.
                    for _ in 0...all.count {
                        let page = try await store.items.items(
                            matching: query, after: forward.last.map { ItemCursor($0) }, limit: size)
                        forward += page
                        if page.count < size { break }
                    }
                    #expect(forward.map(\.id) == all, "'\(text)' \(direction), pages of \(size), forward")
                    var backward: [Item] = []
                    // Bounded: a page that repeats the cursor's item would never end.
                    for _ in 0...all.count {
                        let page = try await store.items.items(
                            matching: query, before: backward.first.map { ItemCursor($0) }, limit: size)
                        backward = page + backward
                        if page.count < size { break }
                    }
                    #expect(backward.map(\.id) == all, "'\(text)' \(direction), pages of \(size), backward")
                }
            }
        }
    }

    /// A shelf of the previous version (migrations up to 0015) gets totals of its rows.
    @Test func aShelfOfThePreviousVersionGetsTotalsOfItsItems() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sqlite").path
        try Self.writePreviousVersionShelf(path)
        let sqlite = try SQLiteBackend.open(path: path)
        try await Self.check(sqlite, "the migration")
    }

    /// Items written to a shelf at `path` migrated up to 0015.
    static func writePreviousVersionShelf(_ path: String) throws {
        let database = try Database(path: path, readerCount: 1)
        defer { database.close() }
        let previous = SQLiteMigrator(
            plan: MigrationPlan(
                migrations: SQLiteBackend.migrator.plan.migrations.filter { $0.name < "0016" }, folder: "Migrations"))
        #expect(try previous.migrate(database).last == "0015_ids_never_reused")
        try database.write { connection in
            try connection.execute(
                "INSERT INTO users (id, name, email, created_at, email_key) VALUES (1, 'Ann', 'a@x', 0, 'a@x')")
            for index in 0..<500 {
                let time = base + Int64(index) * span / 7
                try connection.execute(
                    "INSERT INTO items (user_id, title, status, priority, created_at, updated_at) VALUES "
                        + "(1, 'item', '\(index % 3 == 0 ? "done" : "open")', \(index % 4), \(time), \(time + 5))")
            }
        }
    }
}
