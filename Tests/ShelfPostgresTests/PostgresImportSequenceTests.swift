#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Imports that fail, and imports that run at once.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresImportSequenceTests {
        /// Runs `body` on a plain thread (imports block) and waits.
        private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try body() }) }
                thread.start()
            }
        }

        @Test func aFailedImportLeavesTheNextIDAsItWas() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let first = try await store.items.insert(NewItem(userID: ann, title: "one"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "two"))
                let outcome = try await Self.onThread { () -> Result<ImportCounts, any Error> in
                    Result {
                        let session = try store.makeImportSession(table: .items)
                        defer { session.close() }
                        try session.stage(
                            ImportedItem(
                                id: 9_007_199_254_740_992, owner: .id(ann.rawValue), title: "far", notes: nil,
                                status: .open, priority: 0, createdAt: nil, updatedAt: nil),
                            record: Data("1".utf8))
                        try session.stage(
                            ImportedItem(
                                id: nil, owner: .email("nobody@example.com"), title: "orphan", notes: nil,
                                status: .open, priority: 0, createdAt: nil, updatedAt: nil),
                            record: Data("2".utf8))
                        return try session.apply(
                            mode: .insert, commit: true, continues: false, isCancelled: { false },
                            willCommit: { true }, beforeEnd: { _ in })
                    }
                }
                #expect(throws: (any Error).self) { try outcome.get() }
                let next = try await store.items.insert(NewItem(userID: ann, title: "three"))
                #expect(next.rawValue == first.rawValue + 2)
            }
        }

        private static func stageItems(_ session: any ImportSession, owner: Int64, title: String) throws {
            for id in 1...2000 {
                try session.stage(
                    ImportedItem(
                        id: Int64(id), owner: .id(owner), title: "\(title) \(id)", notes: nil, status: .open,
                        priority: 0, createdAt: nil, updatedAt: nil),
                    record: Data("\(id)".utf8))
            }
        }

        /// Waits (blocking) until another connection to the database waits on a lock.
        private static func waitForAWaiter(at url: String) {
            let done = DispatchSemaphore(value: 0)
            Task {
                let database = (try? PostgresLocation(url: url))?.database ?? ""
                for _ in 0..<6000 {
                    let waiting =
                        (try? await Scratch.strings(
                            """
                            SELECT pid::text FROM pg_stat_activity WHERE datname = '\(database)'
                            AND wait_event_type = 'Lock'
                            """, at: url)) ?? []
                    if !waiting.isEmpty { break }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                done.signal()
            }
            done.wait()
        }

        /// Two replace imports over the same IDs: the second waits for the first to commit,
        /// then applies set-based too (it used to fall back to the row-by-row path).
        @Test func theSecondImportWaitsForTheFirstAndStaysSetBased() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let firstApplying = DispatchSemaphore(value: 0)
                let first = Task {
                    try await Self.onThread {
                        let session = try store.makeImportSession(table: .items)
                        defer { session.close() }
                        try Self.stageItems(session, owner: ann.rawValue, title: "first")
                        _ = try session.apply(
                            mode: .replace, commit: true, continues: false, isCancelled: { false },
                            willCommit: { true },
                            beforeEnd: { _ in
                                firstApplying.signal()
                                Self.waitForAWaiter(at: url)
                            })
                        return (session as? PostgresImportSession)?.appliedRowByRow
                    }
                }
                let second = Task {
                    try await Self.onThread {
                        let session = try store.makeImportSession(table: .items)
                        defer { session.close() }
                        try Self.stageItems(session, owner: ann.rawValue, title: "second")
                        firstApplying.wait()
                        _ = try session.apply(
                            mode: .replace, commit: true, continues: false, isCancelled: { false },
                            willCommit: { true }, beforeEnd: { _ in })
                        return (session as? PostgresImportSession)?.appliedRowByRow
                    }
                }
                #expect(try await first.value == false)
                #expect(try await second.value == false)
                let titles = try await store.items.items(matching: ItemQuery(text: "second"), limit: 3000)
                #expect(titles.count == 2000)
            }
        }
    }
#endif
