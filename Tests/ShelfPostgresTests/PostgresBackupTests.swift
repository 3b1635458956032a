#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfSQLiteBackend
    import ShelfStore
    import Testing

    /// Backups of a PostgreSQL store into a SQLite shelf file.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresBackupTests {
        private static func folder() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appending(path: "pgcore-backup-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        @Test func copiesUsersAndItemsWithTheirIDsAndTimesIntoAShelfFile() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appending(path: "backup.sqlite").path
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                try await store.users.delete(id: ann)
                let carl = try await store.users.insert(NewUser(name: "Carl", email: "carl@example.com"))
                let new = (0..<3000).map {
                    NewItem(
                        userID: $0 % 2 == 0 ? bob : carl, title: "item \($0)", notes: $0 % 3 == 0 ? "n" : nil,
                        status: $0 % 5 == 0 ? .done : .open, priority: $0 % 4)
                }
                try await store.items.insert(contentsOf: new)
                // Edited items have later versions, which the copy keeps.
                for item in try await store.items.items(matching: ItemQuery(text: "item 7"), limit: 5) {
                    var edited = item
                    edited.title += " (edited)"
                    _ = try await store.items.update(edited)
                }
                let users = try await store.users.users()
                let items = try await store.items.items(
                    matching: ItemQuery(sortField: .created, sortDirection: .ascending))
                try await store.backup(to: path)
                // Again over the first backup: an older backup may be replaced.
                try await store.backup(to: path)

                let copy = try Store(path: path)
                #expect(try await copy.users.users() == users)
                let copied = try await copy.items.items(
                    matching: ItemQuery(sortField: .created, sortDirection: .ascending))
                #expect(copied.map(\.id) == items.map(\.id))
                #expect(copied.map(\.title) == items.map(\.title))
                #expect(copied.map(\.createdAt) == items.map(\.createdAt))
                #expect(copied.map(\.updatedAt) == items.map(\.updatedAt))
                #expect(copied.map(\.userID) == items.map(\.userID))
                #expect(copied.map(\.version) == items.map(\.version))
                #expect(copied.contains { $0.version == 2 })
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(leftovers.filter { $0 != "backup.sqlite" && !$0.hasPrefix("backup.sqlite-") } == [])
        }

        @Test func refusesToReplaceAFileThatIsNotAShelf() async throws {
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appending(path: "notes.txt").path
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
            try await Scratch.withBackend { store, _ in
                await #expect { try await store.backup(to: path) } throws: { StoreError.code(of: $0) == .invalidValue }
                await #expect {
                    try await store.backup(to: folder.appending(path: "missing/backup.sqlite").path)
                } throws: { "\($0)".contains("does not exist") }
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        }
    }
#endif
