import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// The settings a store opens with come from `Store.Configuration`, not from the environment.
@Suite struct ConfigurationTests {
    @Test func theWriteTimeoutIsTheConfigurations() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do { _ = try Store(path: path) }
        let store = try Store(path: path, configuration: Store.Configuration(writeTimeout: .milliseconds(300)))
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("BEGIN IMMEDIATE;")
        await #expect {
            try await store.items.insert(NewItem(userID: ann, title: "waits, then fails"))
        } throws: { error in
            // The message names the limit it waited for: 300 ms, not the default 60 s.
            guard let error = error as? StoreError, error.code == .busy else { return false }
            return error.message.contains("longer than 0.3 seconds")
        }
        try await shell.run("ROLLBACK;")
        await store.close()
    }
}
