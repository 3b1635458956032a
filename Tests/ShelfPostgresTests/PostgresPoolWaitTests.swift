#if PostgreSQL
    import Foundation
    import PostgresNIO
    @testable import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import Synchronization
    import Testing

    /// Calls that wait for a connection of a busy pool share one check of the server, and end
    /// as busy after the pool's limit, instead of each opening connections of its own (a
    /// hostile tester saw one `shelf serve` hold 25–29 sessions for a pool of four, and its
    /// clients get 500s, as the server ran out of connections).
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresPoolWaitTests {
        @Test func callsWaitingOnABusyPoolShareOneCheckAndEndAsBusy() async throws {
            try await Scratch.withBackend { store, url in
                store.pool.leasePatience = .milliseconds(100)
                store.pool.leaseLimit = .seconds(2)
                let database = try PostgresLocation(url: url).database
                // Every connection of the pool sleeps 6 s.
                let sleepers = (0..<4).map { _ in
                    Task {
                        try await store.pool.read { connection in
                            _ = try await connection.query("SELECT 1 FROM pg_sleep(6)", logger: .silent).all(Int32.self)
                        }
                    }
                }
                // The sleepers hold every connection once four sessions sleep.
                var sleeping = 0
                for _ in 0..<200 where sleeping < 4 {
                    try await Task.sleep(for: .milliseconds(50))
                    sleeping = try await Self.count(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'",
                        at: url)
                }
                try #require(sleeping == 4, "the pool's four connections never all slept")
                let checksBefore = store.pool.serverCheck.opened.load(ordering: .relaxed)
                let waiting = (0..<200).map { _ in
                    Task { () -> (any Error)? in
                        do {
                            _ = try await store.users.users()
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                // While they wait, the sessions of the database stay few: the pool's four, a
                // watcher each (`LockWait`), one check, this count, and the change feed.
                var most = 0
                for _ in 0..<10 {
                    try await Task.sleep(for: .milliseconds(150))
                    most = max(
                        most,
                        try await Self.count(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'", at: url))
                }
                #expect(most <= 12, "\(most) sessions while 200 calls waited")
                var outcomes: [(any Error)?] = []
                for call in waiting { outcomes.append(await call.value) }
                let checks = store.pool.serverCheck.opened.load(ordering: .relaxed) - checksBefore
                // One check a second at most (the verdict is kept for `fresh`): 200 calls that
                // each checked every 100 ms would have opened thousands.
                #expect(checks <= 12, "the waiting calls opened \(checks) checks")
                for outcome in outcomes {
                    let error = try #require(
                        outcome as? StoreError, "a call did not end as busy: \(String(describing: outcome))")
                    #expect(error.code == .busy)
                    #expect(error.isServerUnavailable)
                    #expect(error.message.contains("none of the 4 connections to the store"), "\(error.message)")
                    #expect(error.message.contains("nothing was read; retry in a moment"), "\(error.message)")
                }
                for sleeper in sleepers { try await sleeper.value }
                // And the pool serves again.
                #expect(try await store.users.users().isEmpty)
            }
        }

        private static func count(_ sql: String, at url: String) async throws -> Int {
            try await PostgresBackend.withConnection(to: try PostgresLocation(url: url)) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: .silent).all(Int64.self).first
                    .map { Int($0) } ?? -1
            }
        }
    }
#endif
