#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import ShelfTestSupport
    import Testing

    /// Migration 0008 (the change log) on a backend's own schema: what shelf's writes log,
    /// what `psql`'s log (the same), no NOTIFY in writing transactions, and pruning.
    @Suite(.enabled(if: PostgresServer.url != nil, "set SHELF_TEST_POSTGRES to run the PostgreSQL tests"))
    struct PostgresChangeLogMigrationTests {
        /// The log after `seq`, without seqs, IDs and times (which differ between two writers):
        /// table, operation, and the item values before and after.
        static func logged(after seq: Int, at url: String) async throws -> [String] {
            try await Scratch.strings(
                """
                SELECT concat_ws('|', table_name, operation, old_status, new_status, old_priority, new_priority,
                                 old_title, new_title, old_owner IS NOT NULL, new_owner IS NOT NULL,
                                 (old_created IS NOT NULL)::text || (new_created IS NOT NULL)::text,
                                 (old_updated IS NOT NULL)::text || (new_updated IS NOT NULL)::text,
                                 row_id IS NOT NULL)
                FROM shelf_change_log WHERE seq > \(seq) ORDER BY seq
                """, at: url)
        }

        static func lastSeq(at url: String) async throws -> Int {
            Int(try await Scratch.strings("SELECT coalesce(max(seq), 0)::text FROM shelf_change_log", at: url)[0]) ?? 0
        }

        /// Runs `sql` with the real `psql` client, as another program would.
        static func psql(_ sql: String, at url: String) async throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "shelf-psql-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let script = folder.appending(path: "script.sql").path
            try sql.write(toFile: script, atomically: true, encoding: .utf8)
            let status = try await onThread {
                try ChildProcess(
                    "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", script],
                    environment: ["PATH": "/usr/bin:/bin"], stderr: folder.appending(path: "err").path
                ).wait()
            }
            let said = (try? String(contentsOfFile: folder.appending(path: "err").path, encoding: .utf8)) ?? ""
            #expect(status == 0, "psql failed: \(said)")
        }

        @Test func psqlWritesAreLoggedExactlyAsShelfsAre() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let start = try await Self.lastSeq(at: url)

                // Shelf: insert, update (status, priority, title), delete.
                let id = try await store.items.insert(NewItem(userID: ann, title: "Write", priority: 1))
                var item = try #require(try await store.items.item(id: id))
                item.status = .done
                item.priority = 3
                item.title = "Written"
                _ = try await store.items.update(item)
                try await store.items.delete(id: id)
                let middle = try await Self.lastSeq(at: url)
                let byShelf = try await Self.logged(after: start, at: url)

                // psql: the same three changes.
                try await Self.psql(
                    """
                    INSERT INTO items (user_id, title, priority, created_at, updated_at) VALUES (\(ann.rawValue), 'Write', 1, 1, 1);
                    UPDATE items SET status = 'done', priority = 3, title = 'Written', updated_at = 2 WHERE title = 'Write';
                    DELETE FROM items WHERE title = 'Written';
                    """, at: url)
                let byPsql = try await Self.logged(after: middle, at: url)

                #expect(byShelf.count == 3)
                #expect(byShelf == byPsql)
                #expect(
                    byShelf == [
                        "items|I|open|1|Write|f|t|falsetrue|falsetrue|t",
                        "items|U|open|done|1|3|Write|Written|t|t|truetrue|truetrue|t",
                        "items|D|done|3|Written|t|f|truefalse|truefalse|t",
                    ])
            }
        }

        @Test func writingTransactionsNotifyNothing() async throws {
            try await Scratch.withBackend { _, url in
                // No trigger calls pg_notify: only shelf's wake-up after the commit does.
                let notifying = try await Scratch.strings(
                    """
                    SELECT p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                    WHERE NOT t.tgisinternal AND p.prosrc ILIKE '%notify%'
                    """, at: url)
                #expect(notifying.isEmpty)
                let triggers = try await Scratch.strings(
                    "SELECT tgname::text FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname", at: url)
                #expect(triggers.contains("items_log_change"))
                #expect(triggers.contains("users_log_change"))
                #expect(triggers.contains("saved_views_log_change"))
            }
        }

        @Test func theLogIsPrunedToItsLastHundredThousandChanges() async throws {
            try await Scratch.withBackend { store, url in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "Old"))
                // A new store's seqs start at a multiple of 2^32 of its own (postgres/0014): the
                // two changes so far are its first two.
                let origin = try await Self.lastSeq(at: url) - 2
                #expect(origin % 1024 == 0)
                // The next seqs cross 100 × 1,024: that change prunes what lies 100,000 behind it.
                try await Scratch.execute(
                    "SELECT setval(pg_get_serial_sequence('shelf_change_log', 'seq'), \(origin + 102398))", at: url)
                #expect(try await Self.lastSeq(at: url) == origin + 2)
                try await Self.psql(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'a', 1, 1);", at: url)
                #expect(try await Scratch.strings("SELECT count(*)::text FROM shelf_change_log", at: url) == ["3"])
                try await Self.psql(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'b', 1, 1);", at: url)
                // seq 102400: everything up to 2,400 goes, and the horizon says so.
                #expect(
                    try await Scratch.strings(
                        "SELECT string_agg((seq - \(origin))::text, ',' ORDER BY seq) FROM shelf_change_log", at: url)
                        == ["102399,102400"])
                #expect(
                    try await Scratch.strings(
                        "SELECT (pruned_through - \(origin))::text FROM shelf_change_log_horizon", at: url) == ["2400"])
            }
        }
    }
#endif
