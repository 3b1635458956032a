import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

/// `Store.backup(to:)` on every backend keeps what a copy keeps: the backup file holds the
/// same rows as the store in every copied column (IDs, versions, times, owners, tokens).
@Suite("Conformance: backup")
struct BackupConformanceTests {
    @Test(arguments: Backend.available)
    func aBackupKeepsEveryCopiedColumn(_ backend: Backend) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "backup-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "backup.sqlite").path
        try await backend.withStore { store in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "Ann@Example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            var ids: [Item.ID] = []
            for title in ["one", "two", "three"] {
                ids.append(try await store.items.insert(NewItem(userID: ann, title: title, notes: "n ✓ \(title)")))
            }
            // Later versions, on items and on a saved view.
            for _ in 0..<3 {
                var item = try #require(try await store.items.item(id: ids[0]))
                item.title += "!"
                _ = try await store.items.update(item)
            }
            try await store.items.delete(id: ids[1])
            try await store.views.save(NewSavedView(name: "Mine", queryText: "one", owner: bob))
            try await store.views.save(NewSavedView(name: "Mine", queryText: "one prio:>=1", owner: bob))
            try await store.views.rename("Mine", to: "Bob's")
            try await store.tokens.insertToken(
                name: "ci", userID: bob, hash: String(repeating: "ab", count: 32), readOnly: true)

            try await store.backup(to: path)
            let stored = try await Self.side(of: store)
            let backup = try Store(path: path)
            let backedUp = try await Self.side(of: backup)
            await backup.close()
            #expect(backedUp.counts == stored.counts)
            #expect(backedUp.fingerprint == stored.fingerprint, "the backup differs from the store in a copied column")
            #expect(stored.counts.map(\.rows) == [2, 2, 1, 1])
        }
    }

    /// Row counts and fingerprint of every copied column of `store`.
    private static func side(of store: Store) async throws -> CopyReport.Side {
        let copyable = store.backend
        return try await onThread {
            try copyable.withCopySnapshot { snapshot in try StoreCopier.side(of: snapshot) }
        }
    }
}
