#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import ShelfTestSupport
    import Testing

    /// What the open's repair (`shelf_repair`, postgres/0014) puts right after another program
    /// broke it (issue 23, hostile round 9): sequences set back, counts emptied, triggers,
    /// functions and the log's horizon dropped, and a parallel data-only restore.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct PostgresSelfRepairTests {
        /// Expects `body` to fail with a message holding every one of `words`.
        static func expectFailure(
            _ what: String, holding words: [String], _ body: () async throws -> Void
        ) async {
            do {
                try await body()
                Issue.record("\(what) succeeded")
            } catch let error as StoreError {
                for word in words { #expect(error.message.contains(word), "\(what): \(error.message)") }
            } catch {
                Issue.record("\(what): \(error)")
            }
        }

        /// ID sequences set back by hand: an add fails saying so and what to do; the next open
        /// moves each sequence past the highest ID ever used, the removed ones too (only the
        /// change log remembers them), so no ID is handed out twice. Before 0014 the add
        /// failed with a bare 23505, the open repaired nothing, and the removed item's ID
        /// was handed out again.
        @Test func idSequencesSetBackAreMovedPastEveryIDEverUsed() async throws {
            try await Scratch.withDatabase { url in
                var store = try await PostgresBackend.open(url: url)
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                var ids: [Item.ID] = []
                for index in 0..<5 {
                    ids.append(try await store.items.insert(NewItem(userID: ann, title: "i \(index)")))
                }
                // The highest of each is removed: nothing but the change log holds their IDs.
                try await store.items.delete(id: ids[4])
                _ = try await store.users.delete(id: bob)
                try await Scratch.execute(
                    "SELECT setval('items_id_seq', 1), setval('users_id_seq', 1)", at: url)

                await Self.expectFailure(
                    "an add with the item IDs set back",
                    holding: ["item ID is already taken", "Key (id)=(2) already exists", "shelf migrate"]
                ) {
                    _ = try await store.items.insert(NewItem(userID: ann, title: "refused"))
                }
                await store.close()

                store = try await PostgresBackend.open(url: url)
                #expect(
                    store.repairs.sorted() == [
                        // The refused add took ID 2.
                        "moved the sequence of item IDs from 3 to \(ids[4].rawValue + 1) "
                            + "(the highest item ID ever used is \(ids[4].rawValue))",
                        "moved the sequence of user IDs from 2 to \(bob.rawValue + 1) "
                            + "(the highest user ID ever used is \(bob.rawValue))",
                    ], "\(store.repairs)")
                let item = try await store.items.insert(NewItem(userID: ann, title: "after"))
                #expect(item.rawValue == ids[4].rawValue + 1, "a removed item's ID was handed out again")
                let carol = try await store.users.insert(NewUser(name: "Carol", email: "carol@example.com"))
                #expect(carol.rawValue == bob.rawValue + 1, "a removed user's ID was handed out again")
                await store.close()
                let again = try await PostgresBackend.open(url: url)
                #expect(again.repairs.isEmpty, "\(again.repairs)")
                await again.close()
            }
        }

        /// The change log's sequence set back with is_called = false (it hands out the value
        /// given next): a write fails saying so; the open moves it past the log's rows.
        /// Before 0014 the repair compared the highest seq with last_value alone and left it.
        @Test func aLogSequenceSetBackUncalledIsMovedPastTheLog() async throws {
            try await Scratch.withDatabase { url in
                var store = try await PostgresBackend.open(url: url)
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "first"))
                let head = Int64(try await Scratch.strings("SELECT max(seq)::text FROM shelf_change_log", at: url)[0])
                let sequence = "pg_get_serial_sequence('shelf_change_log', 'seq')"
                // One behind: a write fails (and takes that seq).
                try await Scratch.execute("SELECT setval(\(sequence), \((head ?? 0) - 1), false)", at: url)
                await Self.expectFailure(
                    "a write with the log's sequence set back",
                    holding: ["change log's seq is already taken", "shelf migrate"]
                ) {
                    _ = try await store.items.insert(NewItem(userID: ann, title: "refused"))
                }
                // At the highest seq, not yet called: it hands out that seq next.
                try await Scratch.execute("SELECT setval(\(sequence), \(head ?? 0), false)", at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(
                    store.repairs == [
                        "moved the change log's sequence from \(head ?? 0) to \((head ?? 0) + 1)"
                    ], "\(store.repairs)")
                _ = try await store.items.insert(NewItem(userID: ann, title: "after"))
                #expect(try await store.items.count(matching: ItemQuery()) == 2)
                await store.close()
            }
        }

        /// Counts emptied by hand, and a count trigger dropped while items were written: the
        /// open counts the items again and says why; a count moved between two groups (the
        /// totals still add up) is found by `shelf migrate`'s full comparison. Before 0014 the
        /// counts stayed wrong with no message.
        @Test func wrongCountsAndDroppedTriggersAreFoundAndPutRight() async throws {
            try await Scratch.withDatabase { url in
                var store = try await PostgresBackend.open(url: url)
                let owners = try await PostgresOutsideToolsTests.fill(store, at: url)

                try await Scratch.execute("DELETE FROM shelf_item_totals", at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(store.repairs.count == 1, "\(store.repairs)")
                #expect(
                    store.repairs.first?.hasPrefix(
                        "counted the items again (the counts added up to 1, the items are 581)")
                        == true, "\(store.repairs)")
                try await PostgresItemCountTests.check(store, url, owners, "totals emptied")

                try await Scratch.execute("DROP TRIGGER items_count_insert ON items", at: url)
                try await PostgresChangeLogMigrationTests.psql(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(owners[0].rawValue), 'p', 1, 1)",
                    at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(
                    store.repairs == [
                        "put back the trigger items_count_insert on items",
                        "counted the items again (a count trigger was missing)",
                    ], "\(store.repairs)")
                try await PostgresItemCountTests.check(store, url, owners, "a count trigger put back")

                try await Scratch.execute("SELECT shelf_fold_item_counts()", at: url)
                for (change, order) in [("+ 1", "ASC"), ("- 1", "DESC")] {
                    try await Scratch.execute(
                        """
                        UPDATE shelf_item_totals SET n = n \(change) WHERE ctid = (
                            SELECT ctid FROM shelf_item_totals WHERE kind = 'c' ORDER BY n \(order), bucket LIMIT 1)
                        """, at: url)
                }
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(store.repairs.isEmpty, "the totals add up: only the full comparison sees it")
                let full = try await Store.repairInFull(postgres: url)
                #expect(full == ["counted the items again (2 groups of the counts differed from the items)"])
                try await PostgresItemCountTests.check(store, url, owners, "a count moved between groups")
                #expect(try await Store.repairInFull(postgres: url).isEmpty)
                await store.close()
            }
        }

        /// A dropped horizon, a dropped `shelf_repair`, a dropped fold (a bulk insert fails
        /// naming it), and a dropped count function (which takes its triggers with it): `shelf
        /// migrate` (any open) makes each again and says so. Before 0014 the horizon's error
        /// advised `shelf migrate`, which did not make it, a dropped function failed with a
        /// bare 42883, and a dropped `shelf_repair` turned every repair off without a word.
        @Test func droppedHorizonAndFunctionsArePutBack() async throws {
            try await Scratch.withDatabase { url in
                var store = try await PostgresBackend.open(url: url)
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(
                    contentsOf: (0..<30).map { NewItem(userID: ann, title: "item \($0)", priority: $0 % 4) })

                try await Scratch.execute("DROP TABLE shelf_change_log_horizon", at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(store.repairs == ["put back shelf_change_log_horizon"], "\(store.repairs)")
                #expect(
                    try await Scratch.strings("SELECT count(*)::text FROM shelf_change_log_horizon", at: url) == ["1"])

                try await Scratch.execute("DROP FUNCTION shelf_repair(boolean)", at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(store.repairs == ["put back the function shelf_repair"], "\(store.repairs)")

                // The fold, called by a statement that appends 1,024 deltas or more: such an
                // insert fails naming it and `shelf migrate`, which puts it back.
                try await Scratch.execute("DROP FUNCTION shelf_fold_item_counts()", at: url)
                let span = PostgresItemCountTests.span
                let spread = (0..<1_100).map {
                    NewItem(
                        userID: ann, title: "spread \($0)",
                        createdAt: Date(
                            timeIntervalSince1970: Double(PostgresItemCountTests.base + Int64($0) * span) / 1000))
                }
                await Self.expectFailure(
                    "a bulk insert with the fold dropped",
                    holding: [
                        "the function shelf_fold_item_counts of the shelf", "shelf migrate", "nothing was changed",
                    ]
                ) {
                    _ = try await store.items.insert(contentsOf: spread)
                }
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(store.repairs == ["put back the function shelf_fold_item_counts"], "\(store.repairs)")
                _ = try await store.items.insert(contentsOf: spread)

                try await Scratch.execute("DROP FUNCTION shelf_count_item_changes() CASCADE", at: url)
                try await PostgresChangeLogMigrationTests.psql(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(ann.rawValue), 'p', 1, 1)",
                    at: url)
                await store.close()
                store = try await PostgresBackend.open(url: url)
                #expect(
                    store.repairs == [
                        "put back the function shelf_count_item_changes",
                        "put back the trigger items_count_delete on items",
                        "put back the trigger items_count_insert on items",
                        "put back the trigger items_count_update on items",
                        "counted the items again (a count trigger was missing)",
                    ], "\(store.repairs)")
                try await PostgresItemCountTests.check(store, url, [ann], "count functions put back")
                _ = try await store.items.insert(NewItem(userID: ann, title: "after", status: .done))
                try await PostgresItemCountTests.check(store, url, [ann], "a write after")
                await store.close()
                let again = try await PostgresBackend.open(url: url)
                #expect(again.repairs.isEmpty, "\(again.repairs)")
                await again.close()
            }
        }

        /// A custom-format `pg_dump --data-only` restored into databases `shelf migrate` made,
        /// with the change log's data loaded first (what `pg_restore -j` did when it lost the
        /// users: a list file puts it first, in one job, so the order is certain), and in one
        /// transaction: no error, every user and item, exact counts. Before 0014 both logs'
        /// seqs started at 1: the users' COPY failed on the seqs their triggers took, and the
        /// items' on the missing users; in one transaction the log's COPY failed and took
        /// everything with it.
        @Test func dataOnlyRestoresWithTheLogFirstLoadEverything() async throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "shelf-dump-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let dump = folder.appending(path: "data.dump").path
            let contents = folder.appending(path: "contents.txt").path
            let logFirst = folder.appending(path: "log-first.txt").path
            var owners: [User.ID] = []
            var expected = 0
            try await Scratch.withBackend { source, url in
                owners = try await PostgresOutsideToolsTests.fill(source, at: url)
                expected = try await source.items.count(matching: ItemQuery())
                let dumped = try await PostgresOutsideToolsTests.run(
                    "/usr/bin/pg_dump", ["--data-only", "-Fc", "-f", dump, "-d", url])
                #expect(dumped.status == 0, "pg_dump --data-only failed: \(dumped.said)")
            }
            let listed = try await PostgresOutsideToolsTests.run("/usr/bin/pg_restore", ["-l", dump], stdout: contents)
            #expect(listed.status == 0, "pg_restore -l failed: \(listed.said)")
            let entries = try String(contentsOfFile: contents, encoding: .utf8).split(separator: "\n")
                .filter { !$0.hasPrefix(";") }
            let isLog = { (entry: Substring) in entry.contains(" TABLE DATA public shelf_change_log ") }
            #expect(entries.contains(where: isLog), "\(entries)")
            try (entries.filter(isLog) + entries.filter { !isLog($0) }).joined(separator: "\n")
                .write(toFile: logFirst, atomically: true, encoding: .utf8)
            for options in [["-L", logFirst], ["--single-transaction", "--exit-on-error"]] {
                try await Scratch.withDatabase { url in
                    let target = try await PostgresBackend.open(url: url)
                    await target.close()
                    let restored = try await PostgresOutsideToolsTests.run(
                        "/usr/bin/pg_restore", ["--data-only"] + options + ["-d", url, dump])
                    #expect(restored.status == 0, "pg_restore \(options) failed: \(restored.said)")
                    let store = try await PostgresBackend.open(url: url)
                    #expect(try await store.users.users().count == owners.count, "pg_restore \(options)")
                    #expect(try await store.items.count(matching: ItemQuery()) == expected, "pg_restore \(options)")
                    try await PostgresItemCountTests.check(store, url, owners, "pg_restore \(options)")
                    _ = try await store.items.insert(NewItem(userID: owners[0], title: "written after"))
                    try await PostgresItemCountTests.check(store, url, owners, "a write after pg_restore \(options)")
                    await store.close()
                }
            }
        }
    }
#endif
