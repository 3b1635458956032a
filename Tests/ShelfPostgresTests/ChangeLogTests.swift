#if PostgreSQL
    import Logging
    import PostgresNIO
    @testable import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import Testing

    /// The change log's reader (`ChangeLog`, `ChangeLogCursor`, the feed reading it) against a
    /// real server: commits out of seq order, transactions open when a reader starts, pruning.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct ChangeLogTests {
        @Test func twoTransactionsCommittedOutOfSeqOrderAreBothSeen() async throws {
            try await LiveTestDatabase.with { database in
                let feed = database.makeFeed()
                let reader = try await database.connect()
                let early = try await database.connect()
                let late = try await database.connect()
                let count = try await feed.live(reading: ["items"]) {
                    try await reader.integer("SELECT count(*) FROM items")
                }
                // `early` takes the lower seq but commits second.
                try await early.run("BEGIN", "INSERT INTO items (title) VALUES ('early')")
                try await late.run("BEGIN", "INSERT INTO items (title) VALUES ('late')", "COMMIT")
                let seqs = try await reader.integer("SELECT max(seq) FROM shelf_change_log")
                #expect(seqs == 2)
                try await waitUntil("the higher seq, committed first, is seen") { count.value == .success(1) }
                // A reader that kept "the highest seq seen" (2) would never read seq 1.
                try await early.run("COMMIT")
                try await waitUntil("the lower seq, committed second, is seen") { count.value == .success(2) }
            }
        }

        @Test func aGapClosesOnlyOnceEveryTransactionThatCouldHoldItHasEnded() async throws {
            try await LiveTestDatabase.with { database in
                let reader = try await database.connect()
                let early = try await database.connect()
                let late = try await database.connect()
                var cursor = ChangeLogCursor(head: try await ChangeLog.head(on: reader))
                try await early.run("BEGIN", "INSERT INTO items (title) VALUES ('early')")
                try await late.run("INSERT INTO items (title) VALUES ('late')")

                let first = cursor.absorb(
                    try await ChangeLog.page(after: cursor.highest, gaps: cursor.openGaps, on: reader))
                #expect(first.changes.map(\.seq) == [2])
                #expect(cursor.openGaps == [1...1])
                #expect(cursor.through == 0)
                // Still open: another read keeps the gap.
                _ = cursor.absorb(try await ChangeLog.page(after: cursor.highest, gaps: cursor.openGaps, on: reader))
                #expect(cursor.openGaps == [1...1])

                try await early.run("ROLLBACK")
                // Closes at the first read whose snapshot's xmin has passed the gap's bound: at
                // once, unless another transaction of the server (any database) is still open.
                try await waitUntil("the gap closes") {
                    let page = try await ChangeLog.page(after: cursor.highest, gaps: cursor.openGaps, on: reader)
                    #expect(cursor.absorb(page).changes.isEmpty)
                    return cursor.openGaps.isEmpty
                }
                #expect(cursor.through == 2)
            }
        }

        @Test func aTransactionOpenWhenTheReaderStartsIsSeenWhenItCommits() async throws {
            try await LiveTestDatabase.with { database in
                let feed = database.makeFeed()
                let reader = try await database.connect()
                let early = try await database.connect()
                let late = try await database.connect()
                // seq 1 is taken but not committed; seq 2 is committed: the log's head is 2.
                try await early.run("BEGIN", "INSERT INTO items (title) VALUES ('early')")
                try await late.run("INSERT INTO items (title) VALUES ('late')")
                let count = try await feed.live(reading: ["items"]) {
                    try await reader.integer("SELECT count(*) FROM items")
                }
                #expect(count.value == .success(1))
                try await early.run("COMMIT")
                try await waitUntil("the row committed after the start, below the head, is seen") {
                    count.value == .success(2)
                }
            }
        }

        @Test func aReaderBehindThePruningReadsEveryValueAgainOnceAndSaysSoAtDebug() async throws {
            try await LiveTestDatabase.with { database in
                let events = CapturingLogHandler.Events()
                let logger = Logger(label: "shelf.tests.prune") { _ in CapturingLogHandler(events: events) }
                let feed = database.makeFeed(logger: logger)
                let reader = try await database.connect()
                let writer = try await database.connect()
                let runs = Counter()
                let count = try await feed.live(reading: ["items"]) {
                    runs.increment()
                    return try await reader.integer("SELECT count(*) FROM items")
                }
                let users = try await feed.live(reading: ["users"]) {
                    try await reader.integer("SELECT count(*) FROM users")
                }
                let pid = try #require(try await database.listenerPID())
                // The listener is kept away while rows are written and pruned past.
                try await database.onServer { server in
                    try await server.run("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
                    _ = try await server.integer(
                        "SELECT CASE WHEN pg_terminate_backend(\(pid), 10000) THEN 1 ELSE 0 END")
                }
                try await writer.run(
                    "INSERT INTO items (title) VALUES ('one'), ('two')",
                    "BEGIN",
                    "UPDATE shelf_change_log_horizon SET pruned_through = (SELECT max(seq) FROM shelf_change_log)",
                    "DELETE FROM shelf_change_log",
                    "COMMIT")
                let runsBefore = runs.value
                try await database.onServer { server in
                    try await server.run("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
                }
                try await waitUntil("the pruned-away inserts are seen") { count.value == .success(2) }
                // Every value is read again (each on its own task): the users' too.
                try await waitUntil("the users' value is back") { users.value == .success(0) }
                try await waitUntil("the re-read is said") {
                    events.all.contains { $0.message.contains("fell behind the change log's pruning") }
                }
                let said = events.all.filter { $0.message.contains("fell behind the change log's pruning") }
                #expect(said.count == 1)
                #expect(said.allSatisfy { $0.level == .debug })
                #expect(runs.value == runsBefore + 1)

                // And it reads on from there.
                try await writer.run("INSERT INTO items (title) VALUES ('three')")
                try await waitUntil("the next insert is seen") { count.value == .success(3) }
                #expect(events.all.filter { $0.message.contains("fell behind") }.count == 1)
            }
        }
    }
#endif
