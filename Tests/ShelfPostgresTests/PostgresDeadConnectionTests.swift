#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Calls on a connection the server has ended end with "the connection … was lost", never
    /// wait forever.
    ///
    /// postgres-nio 1.33 writes a query into its channel with no promise for the write: once
    /// the channel has closed and NIO has taken its handlers down (before `closeFuture`
    /// completes), the write is dropped, and the query's own promise is never completed.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresDeadConnectionTests {
        /// The pool's call ends with a lost-connection error when the query it sends goes out
        /// after the server ended its connection; the pool works on over a new connection.
        @Test func aQuerySentAfterTheServerEndedTheConnectionFails() async throws {
            try await Scratch.withBackend { store, url in
                let pool = store.pool
                let outcome = await Bounded.run(within: .seconds(60)) {
                    try await pool.read { connection in
                        let pid =
                            try await connection.query("SELECT pg_backend_pid()", logger: Self.silent)
                            .collect().first?.decode(Int32.self) ?? 0
                        try await Scratch.execute("SELECT pg_terminate_backend(\(pid))", at: url)
                        try await connection.closeFuture.get()
                        return try await connection.query("SELECT 1", logger: Self.silent).collect().count
                    }
                }
                guard let outcome else {
                    Issue.record("the call was still waiting after 60 s")
                    return
                }
                #expect(throws: StoreError.self) { try outcome.get() }
                if case .failure(let error) = outcome {
                    #expect("\(error)".contains("was lost"), "\(error)")
                }
                let count = try await store.items.count(matching: ItemQuery())
                #expect(count == 0, "the pool works on over a new connection")
            }
        }

        /// The same on a plain connection of its own (migrations, scratch databases, the lock
        /// watcher).
        @Test func aQueryOnAPlainConnectionTheServerEndedFails() async throws {
            try await Scratch.withDatabase { url in
                let place = try PostgresLocation(url: url)
                let outcome = await Bounded.run(within: .seconds(60)) {
                    try await PostgresBackend.withConnection(to: place) { connection in
                        let pid =
                            try await connection.query("SELECT pg_backend_pid()", logger: Self.silent)
                            .collect().first?.decode(Int32.self) ?? 0
                        try await Scratch.execute("SELECT pg_terminate_backend(\(pid))", at: url)
                        try await connection.closeFuture.get()
                        return try await connection.query("SELECT 1", logger: Self.silent).collect().count
                    }
                }
                guard let outcome else {
                    Issue.record("the call was still waiting after 60 s")
                    return
                }
                #expect(throws: StoreError.self) { try outcome.get() }
                if case .failure(let error) = outcome {
                    #expect("\(error)".contains("was lost"), "\(error)")
                }
            }
        }

        private static let silent = Logger(label: "test")
    }
#endif
