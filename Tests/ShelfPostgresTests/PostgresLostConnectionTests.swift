#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// A connection the server ends (pg_terminate_backend) in the middle of an import.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresLostConnectionTests {
        /// Runs `body` on a plain thread (imports block) and waits.
        private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try body() }) }
                thread.start()
            }
        }

        @Test func aConnectionLostWhileStagingIsAnError() async throws {
            try await Scratch.withBackend { store, url in
                let database = try PostgresLocation(url: url).database
                let outcome = try await Self.onThread { () -> Result<ImportCounts, any Error> in
                    Result {
                        let session = try store.makeImportSession(table: .users)
                        defer { session.close() }
                        for index in 0..<100 {
                            try session.stage(
                                ImportedUser(
                                    id: nil, name: "U\(index)", email: "u\(index)@example.com", createdAt: nil),
                                record: Data("\(index)".utf8))
                        }
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            try? await Scratch.execute(
                                """
                                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                                WHERE datname = '\(database)' AND pid <> pg_backend_pid()
                                """, at: url)
                            done.signal()
                        }
                        done.wait()
                        return try session.apply(
                            mode: .insert, commit: true, continues: false, isCancelled: { false },
                            willCommit: { true }, beforeEnd: { _ in })
                    }
                }
                #expect(throws: (any Error).self) { try outcome.get() }
                if case .failure(let error) = outcome {
                    #expect("\(error)".contains("was lost"), "\(error)")
                    #expect("\(error)".contains("nothing was imported"), "\(error)")
                }
                // On a new connection: the pool's own was ended too.
                #expect(try await Scratch.strings("SELECT count(*)::text FROM users", at: url) == ["0"])
            }
        }
    }
#endif
#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// A connection the server ends in the middle of a snapshot read.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresLostSnapshotTests {
        @Test func aConnectionLostInTheMiddleOfASnapshotReadIsAnError() async throws {
            try await Scratch.withBackend { store, url in
                let database = try PostgresLocation(url: url).database
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let new = (0..<(PostgresBackend.pageSize * 5)).map { NewItem(userID: ann, title: "item \($0)") }
                try await store.items.insert(contentsOf: new)
                let outcome = try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<Result<Int, any Error>, any Error>) in
                    Thread {
                        var seen = 0
                        let result = Result {
                            try store.forEachItemRow(matching: ItemQuery()) { _ in
                                seen += 1
                                guard seen == 10 else { return }
                                let done = DispatchSemaphore(value: 0)
                                Task {
                                    try? await Scratch.execute(
                                        """
                                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                                        WHERE datname = '\(database)' AND pid <> pg_backend_pid()
                                        """, at: url)
                                    done.signal()
                                }
                                done.wait()
                            }
                            return seen
                        }
                        continuation.resume(returning: result)
                    }.start()
                }
                #expect(throws: (any Error).self) { try outcome.get() }
                if case .failure(let error) = outcome { #expect("\(error)".contains("was lost"), "\(error)") }
            }
        }
    }
#endif
