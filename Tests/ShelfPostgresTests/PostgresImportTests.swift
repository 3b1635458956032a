#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Import sessions: staged in TEMP tables, applied in one transaction.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresImportTests {
        /// Runs `body` with a new session on a plain thread (sessions block), then closes it.
        private func withSession<T: Sendable>(
            _ store: PostgresBackend, _ table: ImportTable, _ body: @escaping @Sendable (any ImportSession) throws -> T
        ) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        with: Result {
                            let session = try store.makeImportSession(table: table)
                            defer { session.close() }
                            return try body(session)
                        })
                }
                thread.start()
            }
        }

        private static func record(_ text: String) -> Data { Data(text.utf8) }

        private static func apply(
            _ session: any ImportSession, _ mode: ImportMode, commit: Bool = true, continues: Bool = false
        ) throws -> ImportCounts {
            try session.apply(
                mode: mode, commit: commit, continues: continues, isCancelled: { false }, willCommit: { true },
                beforeEnd: { _ in })
        }

        @Test func insertsUsersWithTheirIDsAndTimes() async throws {
            try await Scratch.withBackend { store, _ in
                let counts = try await withSession(store, .users) { session in
                    try session.stage(
                        ImportedUser(id: 1000, name: "Ann", email: "ann@example.com", createdAt: 5),
                        record: Self.record("1"))
                    try session.stage(
                        ImportedUser(id: nil, name: "Bob", email: "bob@example.com", createdAt: nil),
                        record: Self.record("2"))
                    return try Self.apply(session, .insert)
                }
                #expect(counts.inserted == 2)
                let ann = try #require(try await store.users.user(id: User.ID(1000)))
                #expect(ann.createdAt == Date(timeIntervalSince1970: 0.005))
                let bob = try #require(try await store.users.user(email: "bob@example.com"))
                #expect(bob.id.rawValue > 1000)
                // The store's own IDs go on past the imported ones.
                let carl = try await store.users.insert(NewUser(name: "Carl", email: "carl@example.com"))
                #expect(carl.rawValue > bob.id.rawValue)
            }
        }

        @Test func upsertUpdatesInsertsAndCountsUnchangedItems() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let kept = try await store.items.insert(
                    NewItem(userID: ann, title: "kept", createdAt: Date(timeIntervalSince1970: 1)))
                let changed = try await store.items.insert(NewItem(userID: ann, title: "old"))
                let keptItem = try #require(try await store.items.item(id: kept))
                let counts = try await withSession(store, .items) { session in
                    try session.stage(
                        ImportedItem(
                            id: kept.rawValue, owner: .email("ANN@example.com"), title: "kept", notes: nil,
                            status: .open,
                            priority: 0, createdAt: 1000,
                            updatedAt: keptItem.updatedAt.timeIntervalSince1970 > 0
                                ? Int64((keptItem.updatedAt.timeIntervalSince1970 * 1000).rounded()) : nil),
                        record: Self.record("kept"))
                    try session.stage(
                        ImportedItem(
                            id: changed.rawValue, owner: .id(ann.rawValue), title: "new title", notes: "n",
                            status: .done, priority: 2, createdAt: nil, updatedAt: nil),
                        record: Self.record("changed"))
                    try session.stage(
                        ImportedItem(
                            id: nil, owner: .id(ann.rawValue), title: "brand new", notes: nil, status: .open,
                            priority: 1,
                            createdAt: nil, updatedAt: nil),
                        record: Self.record("new"))
                    return try Self.apply(session, .upsert)
                }
                #expect((counts.inserted, counts.updated, counts.unchanged) == (1, 1, 1))
                let updated = try #require(try await store.items.item(id: changed))
                #expect(updated.title == "new title" && updated.version == 2 && updated.status == .done)
                #expect(try await store.items.count(matching: ItemQuery()) == 3)
            }
        }

        @Test func replaceDeletesWhatTheInputLacks() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                try await store.items.insert(NewItem(userID: ann, title: "Ann's"))
                let counts = try await withSession(store, .users) { session in
                    try session.stage(
                        ImportedUser(id: nil, name: "Ann A.", email: "Ann@Example.com", createdAt: nil),
                        record: Self.record("ann"))
                    return try Self.apply(session, .replace)
                }
                #expect((counts.updated, counts.deleted) == (1, 1))
                #expect(try await store.users.users().map(\.name) == ["Ann A."])
                #expect(try await store.items.count(matching: ItemQuery()) == 1)
            }
        }

        @Test func aRefusedRowWritesNothingAndIsNamed() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let failure = try await withSession(store, .items) { session -> ImportRowFailure? in
                    for index in 1...3 {
                        try session.stage(
                            ImportedItem(
                                id: nil, owner: .id(index == 2 ? 9999 : ann.rawValue), title: "t\(index)", notes: nil,
                                status: .open, priority: 0, createdAt: nil, updatedAt: nil),
                            record: Self.record("row \(index)"))
                    }
                    do {
                        _ = try Self.apply(session, .insert)
                        return nil
                    } catch let failure as ImportRowFailure {
                        #expect(try session.record(seq: failure.seq) == Self.record("row 2"))
                        return failure
                    }
                }
                #expect(failure?.seq == 2)
                #expect(failure?.error.field == "user")
                #expect(try await store.items.count(matching: ItemQuery()) == 0)
            }
        }

        @Test func continuingRecordsRejectsInInputOrder() async throws {
            try await Scratch.withBackend { store, _ in
                try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let (counts, rejects) = try await withSession(store, .users) { session in
                    try session.stage(
                        ImportedUser(id: nil, name: "Dup", email: "ANN@example.com", createdAt: nil),
                        record: Self.record("a"))
                    try session.reject(
                        record: Self.record("b"), line: 3, column: 7, field: "email", value: "x", reason: "bad email",
                        key: .none)
                    try session.stage(
                        ImportedUser(id: nil, name: "Nul\u{0}name", email: "n@example.com", createdAt: nil),
                        record: Self.record("c"))
                    try session.stage(
                        ImportedUser(id: nil, name: "Eve", email: "eve@example.com", createdAt: nil),
                        record: Self.record("d"))
                    var rejects: [ImportReject] = []
                    let counts = try session.apply(
                        mode: .insert, commit: true, continues: true, isCancelled: { false }, willCommit: { true },
                        beforeEnd: { session in
                            try session.forEachReject {
                                rejects.append($0)
                                return true
                            }
                        })
                    return (counts, rejects.map { "\($0.seq) \($0.placed) \($0.field ?? "-")" })
                }
                #expect(counts.inserted == 1 && counts.refused == 2)
                #expect(rejects == ["1 false email", "2 true email", "3 false name"])
                #expect(try await store.users.users().map(\.name) == ["Ann", "Eve"])
            }
        }

        @Test func anItemNamedTwiceIsWrittenInInputOrderRowByRow() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let old = try await store.items.insert(NewItem(userID: ann, title: "old"))
                let gone = try await store.items.insert(NewItem(userID: ann, title: "gone"))
                let counts = try await withSession(store, .items) { session in
                    for title in ["first", "second"] {
                        try session.stage(
                            ImportedItem(
                                id: old.rawValue, owner: .id(ann.rawValue), title: title, notes: nil, status: .open,
                                priority: 0, createdAt: nil, updatedAt: nil),
                            record: Self.record(title))
                    }
                    return try Self.apply(session, .replace)
                }
                #expect((counts.updated, counts.deleted, counts.inserted) == (2, 1, 0))
                let item = try #require(try await store.items.item(id: old))
                #expect(item.title == "second" && item.version == 3)
                #expect(try await store.items.item(id: gone) == nil)
            }
        }

        @Test func dryRunCountsAndWritesNothing() async throws {
            try await Scratch.withBackend { store, _ in
                let counts = try await withSession(store, .users) { session in
                    try session.stage(
                        ImportedUser(id: nil, name: "Ann", email: "ann@example.com", createdAt: nil),
                        record: Self.record("a"))
                    return try Self.apply(session, .insert, commit: false)
                }
                #expect(counts.inserted == 1)
                #expect(try await store.users.users().isEmpty)
            }
        }

        @Test func cancellingRollsBack() async throws {
            try await Scratch.withBackend { store, _ in
                let cancelled = try await withSession(store, .users) { session -> Bool in
                    try session.stage(
                        ImportedUser(id: nil, name: "Ann", email: "ann@example.com", createdAt: nil),
                        record: Self.record("a"))
                    do {
                        _ = try session.apply(
                            mode: .insert, commit: true, continues: false, isCancelled: { false },
                            willCommit: { false },
                            beforeEnd: { _ in })
                        return false
                    } catch is CancellationError {
                        return true
                    }
                }
                #expect(cancelled)
                #expect(try await store.users.users().isEmpty)
            }
        }

        @Test func aFailingBeforeEndLeavesTheStoreUnchanged() async throws {
            struct DiskFull: Error {}
            try await Scratch.withBackend { store, _ in
                let failed = try await withSession(store, .users) { session -> Bool in
                    try session.stage(
                        ImportedUser(id: nil, name: "Ann", email: "ann@example.com", createdAt: nil),
                        record: Self.record("a"))
                    do {
                        _ = try session.apply(
                            mode: .insert, commit: true, continues: false, isCancelled: { false }, willCommit: { true },
                            beforeEnd: { _ in throw DiskFull() })
                        return false
                    } catch is DiskFull {
                        return true
                    }
                }
                #expect(failed)
                #expect(try await store.users.users().isEmpty)
            }
        }

        @Test func manyRowsGoThroughSeveralBatches() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let count = 5000
                let counts = try await withSession(store, .items) { session in
                    for index in 0..<count {
                        try session.stage(
                            ImportedItem(
                                id: nil, owner: .id(ann.rawValue), title: "item\t\(index) \\ \"q\"",
                                notes: "line\nbreak",
                                status: .open, priority: index % 4, createdAt: Int64(index), updatedAt: nil),
                            record: Data([0, 1, 2, 0xFF]))
                    }
                    return try Self.apply(session, .insert)
                }
                #expect(counts.inserted == count)
                let first = try await store.items.items(
                    matching: ItemQuery(sortField: .created, sortDirection: .ascending), limit: 1)
                #expect(first.first?.title == "item\t0 \\ \"q\"" && first.first?.notes == "line\nbreak")
                // New IDs follow the input's order.
                let all = try await store.items.items(
                    matching: ItemQuery(sortField: .created, sortDirection: .ascending))
                #expect(all.map(\.id) == all.map(\.id).sorted())
            }
        }
    }
#endif
