#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Migration postgres/0012_item_counts: counts filtered by owner, status, priority and a
    /// time range add up `shelf_item_totals` and the deltas not yet folded into them, and must
    /// equal a fresh read of the items after every kind of write: shelf's, psql's (IDs and
    /// owners moved, upserts, cascades, TRUNCATE), rolled back ones, concurrent writers, and
    /// folds at any moment.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct PostgresItemCountTests {
        static let span: Int64 = 1 << 26
        static let base: Int64 = 1_700_000_000_000
        /// When the ages are counted from.
        static let now = Date(timeIntervalSince1970: Double(base + 40 * span) / 1000)

        static let texts: [String] = [
            "", "status:open", "status:done", "prio:3", "prio:>=2", "prio:<1", "status:open prio:3",
            "status:done prio:3", "created:>5d", "created:<10d", "updated:<3d", "created:>30d",
            "status:open created:>2d", "prio:>=2 updated:<20d", "created:2023-11-20", "created:>=2023-11-15",
            "updated:<2023-11-20", "status:done updated:>=2023-11-16 updated:<2023-11-25",
            "created:>1000000d", "status:open status:done", "created:>5d updated:<3d", "created:=3d",
            "prio:1 created:2023-11-20T12:00:00Z", "status:open created:>=2023-11-20 created:<=2023-11-21",
            "@ann", "@b status:done", "@a prio:>=2", "@ann @bob status:open prio:1", "@nobody",
            "@ann created:>5d",
        ]

        /// Every query's count equals the number of items a fresh read of it returns, and
        /// the totals plus the deltas equal a count of the table by span and by owner.
        static func check(_ store: PostgresBackend, _ url: String, _ owners: [User.ID], _ step: String)
            async throws
        {
            var queries = texts.map { ItemQuery(text: $0) }
            for owner in owners {
                queries += [ItemQuery(owner: owner), ItemQuery(owner: owner, text: "status:done prio:>=1")]
            }
            for var query in queries {
                query.agesFrom = now
                let counted = try await store.items.count(matching: query)
                let read = try await store.items.items(matching: query, after: nil, limit: nil).count
                #expect(counted == read, "after \(step): '\(query.text)' counted \(counted), a read finds \(read)")
            }
            let drift = try await Scratch.strings(
                """
                WITH kept AS (
                    SELECT kind, bucket, status, priority, n FROM shelf_item_totals
                    UNION ALL SELECT 'c', created_span, status, priority, n FROM shelf_item_count_deltas
                    UNION ALL SELECT 'u', updated_span, status, priority, n FROM shelf_item_count_deltas
                    UNION ALL SELECT 'o', user_id, status, priority, n FROM shelf_item_count_deltas
                ), summed AS (
                    SELECT kind, bucket, status, priority, sum(n) AS n FROM kept GROUP BY 1, 2, 3, 4
                ), counted AS (
                    SELECT 'c' AS kind, created_at >> 26 AS bucket, status, priority, count(*) AS n
                    FROM items GROUP BY 2, 3, 4
                    UNION ALL SELECT 'u', updated_at >> 26, status, priority, count(*) FROM items GROUP BY 2, 3, 4
                    UNION ALL SELECT 'o', user_id, status, priority, count(*) FROM items GROUP BY 2, 3, 4
                )
                SELECT kind || ' ' || bucket || ' ' || status || ' ' || priority || ': '
                    || coalesce(s.n, 0) || ' against ' || coalesce(c.n, 0)
                FROM summed s FULL JOIN counted c USING (kind, bucket, status, priority)
                WHERE coalesce(s.n, 0) <> coalesce(c.n, 0)
                """, at: url)
            #expect(drift.isEmpty, "after \(step): the totals differ from the table: \(drift)")
        }

        @Test func countsEqualAFreshReadAfterEveryKindOfWrite() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                let cy = try await store.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
                let owners = [ann, bob, cy]
                var generator = SeededRandomNumberGenerator(seed: 12)
                func randomTime() -> Int64 { Self.base + Int64.random(in: 0..<(40 * Self.span), using: &generator) }
                let items = (0..<1_500).map { _ in
                    NewItem(
                        userID: owners.randomElement(using: &generator) ?? ann, title: "item",
                        status: Bool.random(using: &generator) ? .open : .done,
                        priority: Int.random(in: 0...3, using: &generator),
                        createdAt: Date(timeIntervalSince1970: Double(randomTime()) / 1000))
                }
                _ = try await store.items.insert(contentsOf: items)
                try await Self.check(store, url, owners, "inserting 1,500 items")
                try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                try await Self.check(store, url, owners, "a fold")

                // Shelf's own writes: updates of status, priority and owner, deletes.
                let stored = try await store.items.items(matching: ItemQuery(), after: nil, limit: 200)
                for item in stored.prefix(100) {
                    var changed = item
                    changed.status = item.status == .open ? .done : .open
                    changed.priority = (item.priority + 1) % 4
                    if item.priority == 2 { changed.userID = cy }
                    _ = try await store.items.update(changed)
                }
                for item in stored.suffix(50) { try await store.items.delete(id: item.id) }
                try await Self.check(store, url, owners, "shelf's updates and deletes")

                // psql's writes, each checked; folds in between.
                let (a, b) = (stored[0].id.rawValue, stored[1].id.rawValue)
                let statements = [
                    "UPDATE items SET created_at = \(randomTime()), updated_at = \(randomTime()) WHERE id % 7 = 0",
                    "UPDATE items SET priority = 3, status = 'done' WHERE id % 11 = 0",
                    "UPDATE items SET user_id = \(bob.rawValue) WHERE id % 5 = 0",
                    "UPDATE items SET title = 'retitled' WHERE id % 3 = 0",
                    "BEGIN; UPDATE items SET status = 'open'; DELETE FROM items WHERE id % 2 = 0; ROLLBACK;",
                    "BEGIN; UPDATE items SET priority = 0 WHERE id % 4 = 0; SELECT shelf_fold_item_counts(); ROLLBACK;",
                    "INSERT INTO items (id, user_id, title, status, priority, created_at, updated_at) "
                        + "VALUES (\(b), \(ann.rawValue), 'upsert', 'open', 0, \(randomTime()), \(randomTime())) "
                        + "ON CONFLICT (id) DO UPDATE SET status = 'open', priority = 0, user_id = \(cy.rawValue)",
                    "UPDATE items SET id = \(a) + 1000000 WHERE id = \(a)",
                    "BEGIN; DELETE FROM items WHERE id % 13 = 0; SELECT shelf_fold_item_counts(); COMMIT;",
                    "BEGIN ISOLATION LEVEL REPEATABLE READ; UPDATE items SET status = 'done' WHERE id % 17 = 0; "
                        + "SELECT shelf_fold_item_counts(); COMMIT;",
                    "DELETE FROM users WHERE id = \(cy.rawValue)",
                ]
                for statement in statements {
                    try await PostgresChangeLogMigrationTests.psql(statement, at: url)
                    try await Self.check(store, url, owners, statement)
                }
                try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                try await Self.check(store, url, owners, "a fold after psql's writes")

                // Concurrent writers, some rolling back, with folds among them: a few of the
                // 1,000 changes fold (one in 1,024 at random) and two folds are asked for.
                let survivors = [ann, bob]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<8 {
                        let owner = survivors[writer % 2]
                        group.addTask {
                            for round in 0..<5 {
                                let outcome = round == 2 ? "ROLLBACK" : "COMMIT"
                                let fold = writer == round ? "SELECT shelf_fold_item_counts();" : ""
                                try await PostgresChangeLogMigrationTests.psql(
                                    """
                                    BEGIN;
                                    INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                                    SELECT \(owner.rawValue), 'w', CASE WHEN g % 3 = 0 THEN 'done' ELSE 'open' END,
                                        g % 4, \(Self.base) + g * 1000000, \(Self.base) + g * 2000000
                                    FROM generate_series(1, 20) g;
                                    UPDATE items SET priority = (priority + 1) % 4 WHERE id IN (
                                        SELECT id FROM items WHERE user_id = \(owner.rawValue) ORDER BY id DESC LIMIT 3);
                                    \(fold)
                                    \(outcome);
                                    """, at: url)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                try await Self.check(store, url, survivors, "8 concurrent writers")

                try await PostgresChangeLogMigrationTests.psql("TRUNCATE items", at: url)
                try await Self.check(store, url, survivors, "TRUNCATE")
                _ = try await store.items.insert(
                    contentsOf: Array(items.prefix(30)).map { item in
                        var item = item
                        item.userID = ann
                        return item
                    })
                try await Self.check(store, url, survivors, "inserts after TRUNCATE")
            }
        }

        /// A database of the previous version (migrations up to 0011) gets totals of its items.
        @Test func aDatabaseOfThePreviousVersionGetsTotalsOfItsItems() async throws {
            try await Scratch.withDatabase { url in
                let place = try PostgresLocation(url: url)
                let previous = PostgresMigrator(
                    plan: MigrationPlan(
                        migrations: PostgresMigrator.embedded.migrations.filter { $0.name < "0012" },
                        folder: "Migrations/postgres"))
                let applied = try await PostgresBackend.withConnection(to: place) { connection in
                    try await previous.migrate(on: connection, at: place)
                }
                #expect(applied.last == "0011_bulk_actions")
                try await Scratch.execute(
                    "INSERT INTO users (name, email, created_at) VALUES ('Ann', 'ann@example.com', 0)", at: url)
                try await Scratch.execute(
                    """
                    INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                    SELECT (SELECT min(id) FROM users), 'item', CASE WHEN g % 3 = 0 THEN 'done' ELSE 'open' END, g % 4,
                        \(Self.base) + g * \(Self.span / 7), \(Self.base) + g * \(Self.span / 7) + 5
                    FROM generate_series(0::bigint, 499::bigint) g;
                    """, at: url)
                let ids = try await Scratch.strings("SELECT min(id)::text FROM users", at: url)
                let owner = try #require(ids.first.flatMap { Int64($0) })
                let store = try await PostgresBackend.open(url: url)
                #expect(
                    store.appliedMigrations == [
                        "0012_item_counts", "0013_restores_and_folds", "0014_self_repair", "0015_owner_order_filters",
                    ])
                try await Self.check(store, url, [User.ID(owner)], "the migration")
                await store.close()
            }
        }
    }
#endif
