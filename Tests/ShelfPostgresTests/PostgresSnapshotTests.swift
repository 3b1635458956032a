#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Snapshot reads: rows of one query streamed to a blocking caller.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresSnapshotTests {
        /// Runs `body` on a plain thread (snapshot reads block, so never on a task) and waits.
        private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try body() }) }
                thread.start()
            }
        }

        /// Hostile round 12: items whose user another program deleted (foreign keys set aside)
        /// were left out of an export that said "Exported 2694 items" of 3,006 and exited 0.
        /// The read stops at the first, naming it and its user.
        @Test func anItemWhoseUserIsGoneStopsTheReadNamingIt() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bo = try await store.users.insert(NewUser(name: "Bo", email: "bo@example.com"))
                _ = try await store.items.insert(
                    contentsOf: (0..<30).map { NewItem(userID: $0 < 20 ? ann : bo, title: "t\($0)") })
                try await PostgresBackend.withConnection(to: try PostgresLocation(url: url)) { connection in
                    _ = try await connection.query(
                        "SET session_replication_role = replica", logger: Logger(label: "test"))
                    _ = try await connection.query(
                        PostgresQuery(unsafeSQL: "DELETE FROM users WHERE id = \(bo.rawValue)"),
                        logger: Logger(label: "test"))
                }
                let outcome = try await onThread { () -> String in
                    var count = 0
                    do {
                        try store.forEachItem(matching: ItemQuery()) { _ in count += 1 }
                        return "read \(count) items without an error"
                    } catch let error as StoreError {
                        return error.message
                    }
                }
                #expect(outcome.contains("holds item 21, whose user \(bo.rawValue) no longer exists"), "\(outcome)")
                #expect(outcome.contains("lists every one"), "\(outcome)")
            }
        }

        @Test func noRowsOneRowAndManyRows() async throws {
            try await Scratch.withBackend { store, _ in
                let none = try await onThread {
                    var count = 0
                    try store.forEachUserRow(orderedByName: false) { _ in count += 1 }
                    return count
                }
                #expect(none == 0)
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let one = try await onThread {
                    var rows: [String] = []
                    try store.forEachUserRow(orderedByName: false) { rows.append($0.email) }
                    return rows
                }
                #expect(one == ["ann@example.com"])
                // More rows than a page holds, so the reader waits for the body many times.
                let many = PostgresBackend.pageSize * 3 + 17
                let new = (0..<many).map { NewItem(userID: ann, title: "item \($0)", priority: $0 % 4) }
                let ids = try await store.items.insert(contentsOf: new)
                let read = try await onThread {
                    var seen: [Int64] = []
                    try store.forEachItemRow(matching: ItemQuery()) { seen.append($0.id) }
                    return seen
                }
                #expect(read == ids.map(\.rawValue))
                let filtered = try await onThread {
                    var count = 0
                    try store.forEachItemRow(matching: ItemQuery(text: "item 7")) { _ in count += 1 }
                    return count
                }
                #expect(filtered == new.filter { $0.title.hasPrefix("item 7") }.count)
            }
        }

        @Test func aThrowingBodyStopsTheQueryAndItsErrorComesOut() async throws {
            struct Enough: Error {}
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let count = PostgresBackend.pageSize * 4
                try await store.items.insert(contentsOf: (0..<count).map { NewItem(userID: ann, title: "t\($0)") })
                let calls = try await onThread { () -> Int in
                    var calls = 0
                    do {
                        try store.forEachItemRow(matching: ItemQuery()) { _ in
                            calls += 1
                            if calls == 10 { throw Enough() }
                        }
                        return -1
                    } catch is Enough {
                        return calls
                    }
                }
                #expect(calls == 10)
                // The pool is usable afterwards: the stopped query gave its connection back.
                #expect(try await store.items.count(matching: ItemQuery()) == count)
            }
        }

        @Test func aFailingQueryThrowsAStoreError() async throws {
            try await Scratch.withBackend { store, url in
                try await Scratch.execute("DROP TABLE items", at: url)
                await #expect {
                    try await onThread { try store.forEachItemRow(matching: ItemQuery()) { _ in } }
                } throws: { StoreError.code(of: $0) == .database }
            }
        }
    }
#endif
