#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import Testing

    /// Live values on a PostgreSQL backend stay exactly what a fresh read returns, whoever
    /// writes (shelf, psql, in multi-row transactions), and the listener's reconnects neither
    /// lose a change nor publish one twice.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct PostgresLiveExactnessTests {
        static let queries: [ItemQuery] = [
            ItemQuery(),
            ItemQuery(status: .open),
            ItemQuery(text: "prio:2"),
            ItemQuery(text: "alpha"),
            ItemQuery(text: "status:done", sortField: .priority, sortDirection: .ascending),
            ItemQuery(sortField: .title, sortDirection: .ascending),
            ItemQuery(sortField: .updated),
        ]

        @Test func everyLiveValueEqualsAFreshReadAfterRandomWritesBySheldAndPsql() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                let owners = [ann, bob]
                var queries = Self.queries + [ItemQuery(owner: bob)]
                queries.append(ItemQuery(owner: ann, text: "beta"))
                var lives: [Property<LiveResult<ItemWindow>>] = []
                for query in queries { lives.append(try await store.liveItems(matching: query, after: nil, limit: 5)) }
                var random = SeededRandomNumberGenerator(seed: 23)
                let words = ["alpha", "beta", "gamma"]
                var ids: [Item.ID] = []
                for step in 0..<60 {
                    let kind = Int.random(in: 0..<10, using: &random)
                    if kind < 4 || ids.isEmpty {
                        let id = try await store.items.insert(
                            NewItem(
                                userID: owners.randomElement(using: &random) ?? ann,
                                title: "\(words.randomElement(using: &random) ?? "alpha") \(step)",
                                status: Bool.random(using: &random) ? .open : .done,
                                priority: Int.random(in: 0...3, using: &random)))
                        ids.append(id)
                    } else if kind < 6 {
                        let id = ids.randomElement(using: &random) ?? ids[0]
                        if var item = try await store.items.item(id: id) {
                            item.priority = Int.random(in: 0...3, using: &random)
                            item.status = Bool.random(using: &random) ? .open : .done
                            item.title = "\(words.randomElement(using: &random) ?? "beta") edited \(step)"
                            _ = try await store.items.update(item)
                        }
                    } else if kind < 7 {
                        let id = ids.remove(at: Int.random(in: 0..<ids.count, using: &random))
                        try? await store.items.delete(id: id)
                    } else {
                        // psql: a transaction of several statements, as another program makes it.
                        let owner = owners.randomElement(using: &random) ?? ann
                        let priority = Int.random(in: 0...3, using: &random)
                        let victim = ids.randomElement(using: &random)?.rawValue ?? 0
                        try await PostgresChangeLogMigrationTests.psql(
                            """
                            BEGIN;
                            INSERT INTO items (user_id, title, priority, created_at, updated_at)
                                VALUES (\(owner.rawValue), 'alpha psql \(step)', \(priority), \(step), \(step)),
                                       (\(owner.rawValue), 'gamma psql \(step)', 3, \(step), \(step));
                            UPDATE items SET status = 'done', updated_at = updated_at + 1 WHERE id = \(victim);
                            DELETE FROM items WHERE id = (SELECT min(id) FROM items WHERE title LIKE 'gamma%');
                            COMMIT;
                            """, at: url)
                        ids = try await store.items.items(matching: ItemQuery()).map(\.id)
                    }
                    if step % 6 == 5 || step == 59 { try await Self.settle(store, queries, lives) }
                }
            }
        }

        /// Waits until every live value equals a fresh read of its query.
        static func settle(
            _ store: PostgresBackend, _ queries: [ItemQuery], _ lives: [Property<LiveResult<ItemWindow>>]
        )
            async throws
        {
            for (query, live) in zip(queries, lives) {
                var fresh = ItemWindow(items: [], totalCount: -1)
                do {
                    try await waitUntil("the live window of \(query) equals a fresh read", limit: .seconds(20)) {
                        fresh = ItemWindow(
                            items: try await store.items.items(matching: query, after: nil, limit: 5),
                            totalCount: try await store.items.count(matching: query))
                        return live.value == .success(fresh)
                    }
                } catch {
                    Issue.record("live \(live.value) fresh \(fresh)")
                    throw error
                }
            }
        }

        /// How many times the listener is killed: 100 as the issue asks with
        /// `SHELF_TEST_RECONNECTS=100`; 20 by default, so a full run stays within CI's time (each
        /// round takes seconds under load).
        static let reconnects = ProcessInfo.processInfo.environment["SHELF_TEST_RECONNECTS"].flatMap { Int($0) } ?? 20

        @Test func aHundredForcedReconnectsUnderFourWritersMissNothingAndPublishNothingTwice() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let live = try await store.liveItems(matching: ItemQuery(), after: nil, limit: 1)
                let published = Recorder(live)
                let stop = Counter()
                let written = Counter()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            var index = 0
                            while stop.value == 0 {
                                _ = try await store.items.insert(NewItem(userID: ann, title: "w\(writer) \(index)"))
                                written.increment()
                                index += 1
                                // Writers at a steady pace, not flat out: four unpaced writers for
                                // minutes starved the rest of a full test run (browser screens and
                                // an in-process server waited for threads for over 30 s).
                                try await Task.sleep(for: .milliseconds(5))
                            }
                        }
                    }
                    group.addTask {
                        defer { stop.increment() }
                        for _ in 0..<Self.reconnects {
                            var listening: Int?
                            try await waitUntil("the listener is connected", limit: .seconds(120)) {
                                listening = try? await Self.listenerPID(url)
                                return listening != nil
                            }
                            let pid = try #require(listening)
                            try await Scratch.execute("SELECT pg_terminate_backend(\(pid), 10000)", at: url)
                            try await waitUntil("a new listening connection", limit: .seconds(120)) {
                                let now = try? await Self.listenerPID(url)
                                return now != nil && now != pid
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let table = try await store.items.count(matching: ItemQuery())
                #expect(table == written.value)
                do {
                    try await waitUntil("the live count reaches the table's", limit: .seconds(120)) {
                        (try? live.value.get())?.totalCount == table
                    }
                } catch {
                    Issue.record("the table holds \(table); the live value is \(live.value)")
                    throw error
                }
                // Inserts only: each published count is higher than the one before it.
                let counts = published.recorded.compactMap { try? $0.get().totalCount }
                let twice = zip(counts, counts.dropFirst()).filter { $0.0 >= $0.1 }
                #expect(twice.isEmpty, "published twice or backwards: \(twice.prefix(5))")
                #expect(counts.last == table)
            }
        }

        /// The backend of the store's listening connection: the one whose last statement was its
        /// `LISTEN` or its cursor's read of the log (`ChangeLog.page`, `true AS after`). The
        /// pool's connections read the log too (the live windows' passes), but never that way.
        static func listenerPID(_ url: String) async throws -> Int {
            let pids = try await Scratch.strings(
                """
                SELECT pid::text FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                  AND (query LIKE 'LISTEN%' OR query LIKE '%true AS after%')
                """, at: url)
            guard let pid = pids.first.flatMap({ Int($0) }) else { throw GaveUpWaiting(what: "no listener") }
            return pid
        }
    }
#endif
