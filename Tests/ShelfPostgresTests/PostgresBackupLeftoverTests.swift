#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// A backup from PostgreSQL is one file, as a SQLite store's backup is.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresBackupLeftoverTests {
        @Test func aReplacedBackupLeavesOnlyTheFile() async throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "pgleftover-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "one"))
                let path = folder.appending(path: "b2.sqlite").path
                try await store.backup(to: path)
                try await store.backup(to: path)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["b2.sqlite"])
        }
    }
#endif
