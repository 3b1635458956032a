#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// A backup whose connections the server ends (pg_terminate_backend, as a restart does),
    /// at several moments: before it starts (the pool's idle connection is closing when the
    /// backup's first query comes), and while it reads.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresBackupLostConnectionTests {
        /// Every outcome is a success or "the connection … was lost …; nothing was written",
        /// never "the store … is closed" (the pool was never closed), and the old file stays.
        /// (It hung the suite now and then when a query went out as the server ended its
        /// connection: postgres-nio never answered it. `CallGuard` ends such a call.)
        @Test
        func aLostConnectionSaysSoAndWritesNothing() async throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "pg-backup-lost-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appending(path: "backup.sqlite").path
            try await Scratch.withBackend { store, url in
                let database = try PostgresLocation(url: url).database
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let new = (0..<(PostgresBackend.pageSize * 4)).map { NewItem(userID: ann, title: "item \($0)") }
                try await store.items.insert(contentsOf: new)
                try await store.backup(to: path)
                var before = try Data(contentsOf: URL(fileURLWithPath: path))
                let terminate = """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = '\(database)' AND pid <> pg_backend_pid()
                    """
                var lost = 0
                // nil: terminate, then start the backup at once; else terminate that long after
                // the backup started.
                let moments: [Duration?] = [
                    nil, nil, nil, .zero, .milliseconds(2), .milliseconds(5), .milliseconds(10),
                    .milliseconds(20), .milliseconds(40), .milliseconds(80),
                ]
                // Under load a termination can land after every backup of one pass has ended:
                // up to three passes, until one hits.
                for pass in 0..<3 where pass == 0 || lost == 0 {
                    for moment in moments {
                        if moment == nil { try await Scratch.execute(terminate, at: url) }
                        let backup = Task { try await store.backup(to: path) }
                        if let moment {
                            try await Task.sleep(for: moment)
                            try await Scratch.execute(terminate, at: url)
                        }
                        do {
                            try await backup.value
                            before = try Data(contentsOf: URL(fileURLWithPath: path))
                        } catch {
                            let message = "\(error)"
                            #expect(!message.contains("is closed"), "\(moment.map { "\($0)" } ?? "before"): \(message)")
                            #expect(
                                message.contains("was lost") && message.contains("nothing was written"),
                                "\(moment.map { "\($0)" } ?? "before"): \(message)")
                            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the old backup stays")
                            lost += 1
                        }
                    }
                }
                // The store works on, over new connections.
                #expect(try await store.items.count(matching: ItemQuery()) == new.count)
                #expect(lost > 0, "no termination hit a backup")
            }
        }
    }
#endif
