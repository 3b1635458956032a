import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// `close()` on a SQLite store is deterministic: when it returns, the file is whole on its own
/// and the store refuses work.
@Suite struct CloseTests {
    @Test func closeMergesTheWALAndRemovesItBeforeItReturns() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        try await store.items.insert(NewItem(userID: ann, title: "Read Dune"))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the writes went to the WAL")

        await store.close()

        // `store` is still referenced: the close, not a release, did this.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the WAL is merged and removed")
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        // The main file alone holds everything.
        let copy = folder.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try Store(path: copy)
        #expect(try await reopened.items.count(matching: ItemQuery()) == 1)
        await reopened.close()
        withExtendedLifetime(store) {}
    }

    @Test func aClosedStoreRefusesWorkNamingItsFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        await store.close()
        await store.close()  // twice is fine

        func isClosedError(_ error: any Error) -> Bool {
            guard let error = error as? StoreError else { return false }
            return error.code == .closed && error.message.contains(path) && error.message.contains("open it again")
        }
        await #expect(performing: { _ = try await store.users.users() }, throws: isClosedError)
        await #expect(
            performing: { try await store.items.insert(NewItem(userID: ann, title: "Late")) }, throws: isClosedError)
        await #expect(performing: { _ = try await store.liveUsers() }, throws: isClosedError)
        #expect(throws: (any Error).self) { try store.forEachUser { _ in } }
        #expect(performing: { _ = try store.makeImportSession(table: .users) }, throws: isClosedError)
        await #expect(performing: { try await store.backup(to: folder.path("backup.sqlite")) }, throws: isClosedError)
    }
}
