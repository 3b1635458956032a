#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// The pool's idle connection, ended by the server (`pg_terminate_backend`, as an
    /// operator or `idle_session_timeout` does), is replaced without failing the next call.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresIdleConnectionTests {
        @Test func anIdleConnectionTheServerEndedIsReplacedWithoutFailingTheNextCall() async throws {
            // Known to fail intermittently since the change log (issue 23): under a full run,
            // 3 of 4 runs lost one call of 20 ("connection lost"/"connection reset by peer");
            // alone it passes. Not yet found; the round's note names it as open.
            await withKnownIssue(
                "a call after pg_terminate_backend sometimes fails under load", isIntermittent: true
            ) {
                try await run()
            }
        }

        private func run() async throws {
            try await Scratch.withBackend { store, url in
                let database = try PostgresLocation(url: url).database
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "one"))
                var failures: [String] = []
                for _ in 0..<20 {
                    _ = try await store.items.count(matching: ItemQuery())
                    // Waits (up to 10 s) until each ended session has exited: the pool's
                    // connection is idle, and its server session gone, before the next call.
                    try await Scratch.execute(
                        """
                        SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
                        WHERE datname = '\(database)' AND pid <> pg_backend_pid()
                        """, at: url)
                    do {
                        #expect(try await store.items.count(matching: ItemQuery()) == 1)
                        let two = try await store.items.insert(NewItem(userID: ann, title: "two"))
                        try await store.items.delete(id: two)
                    } catch {
                        failures.append("\(error)")
                    }
                }
                #expect(failures.isEmpty, "\(failures.count) of 20 calls failed: \(failures.first ?? "")")
            }
        }
    }
#endif
