#if PostgreSQL
    import Foundation
    import Logging
    import PostgresNIO
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import Testing

    /// Live windows with their positions (`liveItemSnapshots`) on PostgreSQL: shared with the
    /// plain live windows, and published with a position only when the window is exactly what a
    /// fresh read returns there, even when commits land out of seq order.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct LivePositionTests {
        /// A transaction holding a lower seq commits after one holding a higher: the plain
        /// window shows the later commit at once, but its position (the higher seq) would claim
        /// the lower one too, so the window with positions waits until both are in.
        @Test func aWindowWaitsForItsPositionUntilEveryLowerSeqHasCommitted() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let first = try await store.items.insert(NewItem(userID: ann, title: "first"))
                let plain = try await store.liveItems(matching: ItemQuery(), after: nil, limit: 5)
                let snapshots = try await store.liveItemSnapshots(matching: ItemQuery(), after: nil, limit: 5)
                let recorded = Recorder(snapshots)
                let start = try #require(snapshots.value.get().position)
                #expect(try snapshots.value.get().value.items.map(\.id) == [first])

                let place = try PostgresLocation(url: url)
                try await PostgresBackend.withConnection(to: place) { early in
                    let logger = Logger(label: "test")
                    _ = try await early.query("BEGIN", logger: logger)
                    _ = try await early.query(
                        PostgresQuery(
                            unsafeSQL: "INSERT INTO items (user_id, title, created_at, updated_at) "
                                + "VALUES (\(ann.rawValue), 'early', 1, 1)"),
                        logger: logger)
                    // Commits first, with the higher seq.
                    let late = try await store.items.insert(NewItem(userID: ann, title: "late"))
                    try await waitUntil("the plain window shows the later commit") {
                        (try? plain.value.get())?.items.first?.id == late
                    }
                    // Passes run meanwhile (every 2 to 100 ms); none may publish a position
                    // covering the early seq.
                    try await Task.sleep(for: .milliseconds(500))
                    let held = try snapshots.value.get()
                    #expect(held.value.items.map(\.title) == ["first"], "published before the early seq committed")
                    #expect(held.position == start)
                    _ = try await early.query("COMMIT", logger: logger)
                }
                let head = try await Scratch.strings("SELECT max(seq)::text FROM shelf_change_log", at: url)
                let headSeq = try #require(head.first.flatMap { Int64($0) })
                try await waitUntil("the window with positions shows both") {
                    (try? snapshots.value.get())?.value.totalCount == 3
                }
                let now = try snapshots.value.get()
                #expect(Set(now.value.items.map(\.title)) == ["first", "early", "late"])
                #expect(now.position == LivePosition(sequence: headSeq))
                let fresh = ItemWindow(
                    items: try await store.items.items(matching: ItemQuery(), limit: 5),
                    totalCount: try await store.items.count(matching: ItemQuery()))
                #expect(now.value == fresh)
                // Each publication a new window at a higher position.
                let positions = recorded.recorded.compactMap { try? $0.get().position?.sequence }
                #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }, "\(positions)")
            }
        }

        /// The windows with positions are the shared windows: a hundred of one query read once.
        @Test func windowsWithPositionsShareOneRead() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let query = ItemQuery(status: .open)
                let first = try await store.liveItemSnapshots(matching: query, after: nil, limit: 5)
                let runs = store.liveQueryRuns
                var others: [Property<LiveResult<LiveSnapshot<ItemWindow>>>] = []
                for _ in 0..<100 {
                    others.append(try await store.liveItemSnapshots(matching: query, after: nil, limit: 5))
                }
                #expect(store.liveQueryRuns == runs, "a hundred more of one key read nothing")
                let id = try await store.items.insert(NewItem(userID: ann, title: "open one"))
                try await waitUntil("every one shows the insert") {
                    others.allSatisfy { (try? $0.value.get())?.value.items.first?.id == id }
                        && (try? first.value.get())?.value.items.first?.id == id
                }
                #expect(store.liveQueryRuns == runs, "the insert was applied from the log, not read again")
            }
        }
    }
#endif
