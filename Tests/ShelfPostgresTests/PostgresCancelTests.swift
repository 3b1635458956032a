#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// A call whose task is cancelled (a browser search that the next key superseded) stops
    /// its statement on the server, and its connection serves the next call.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresCancelTests {
        @Test func aCancelledCallStopsItsStatementOnTheServer() async throws {
            try await Scratch.withBackend { store, url in
                let database = try PostgresLocation(url: url).database
                let pool = store.pool
                let running = """
                    SELECT count(*)::text FROM pg_stat_activity
                    WHERE datname = '\(database)' AND state = 'active' AND query LIKE 'SELECT pg_sleep(300)%'
                    """
                let slow = Task {
                    try await pool.read { connection in
                        try await connection.query("SELECT pg_sleep(300)", logger: Logger(label: "test")).collect()
                            .count
                    }
                }
                try await waitUntil("the server runs the statement", limit: .seconds(120)) {
                    try await Scratch.strings(running, at: url) == ["1"]
                }
                slow.cancel()
                // 300 s unless the statement is cancelled on the server.
                let outcome = await Bounded.run(within: .seconds(30)) { try await slow.value }
                guard let outcome else {
                    Issue.record("the cancelled call was still running 30 s later")
                    return
                }
                #expect(throws: (any Error).self) { try outcome.get() }
                let left = try await Scratch.strings(running, at: url)
                #expect(left == ["0"], "the server no longer runs it")
                let count = try await store.items.count(matching: ItemQuery())
                #expect(count == 0, "the pool works on")
            }
        }
    }
#endif
