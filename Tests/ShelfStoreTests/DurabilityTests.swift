import Foundation
import ShelfSQLite
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

@Suite("Durability: a store's file is the whole store")
struct DurabilityTests {
    @Test func releasingTheStoreLeavesNoWAL() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        do {
            let store = try Store(path: path)
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            try await store.items.insert(NewItem(userID: ann, title: "kept"))
            _ = try await store.liveItems(matching: ItemQuery(), limit: 10)  // the readers and tracker are in use
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        #expect(
            !FileManager.default.fileExists(atPath: path + "-wal"), "the last connection checkpoints and removes it")
        // A copy of the main file alone is the whole store.
        let copy = folder.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let reopened = try Store(path: copy)
        #expect(try await reopened.items.items(matching: ItemQuery()).map(\.title) == ["kept"])
    }

    @Test func theWALStaysBoundedUnderBackToBackWrites() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        // Readers hold snapshots all along, as a browser's live queries do.
        let live = try await fixture.store.liveItems(matching: ItemQuery(), limit: 50)
        var largest = 0
        for index in 0..<2_500 {
            try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "write \(index)"))
            if index % 50 == 0 {
                let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
                largest = max(largest, size)
            }
        }
        withExtendedLifetime(live) {}
        // The writer truncates the WAL past 4,000 frames of 4 KiB (plus 24 bytes of header each);
        // when readers keep an attempt from finishing it tries again every 256 frames, so on a
        // loaded machine allow a few retries. Unbounded, it reached 67 MB after 1,000 commits.
        #expect(largest <= 6_000 * (4_096 + 24), "largest WAL seen: \(largest) bytes")
    }

    @Test func aForeignDatabaseIsRefusedAndLeftUnchanged() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("other.sqlite")
        let connection = try Connection(path: path)
        try connection.execute(
            "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)")
        connection.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        #expect {
            _ = try Store(path: path)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .foreignDatabase && error?.message.contains("'invoices'") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "not a byte changed (no WAL switch)")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("notes.sqlite")
        try Data("id,title\n1,hello\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try Store(path: path)
        } throws: { ($0 as? StoreError)?.code == .corrupt }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "id,title\n1,hello\n")
    }

    @Test func anEmptyFileOrEmptyDatabaseBecomesAShelf() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = folder.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        _ = try Store(path: empty)
        let blank = folder.path("blank.sqlite")
        let connection = try Connection(path: blank)
        try connection.execute("PRAGMA user_version = 0; CREATE TABLE t (x); DROP TABLE t")
        connection.close()
        _ = try Store(path: blank)
    }
}

@Suite("Backup")
struct BackupTests {
    @Test func aBackupIsTheWholeStoreWhileAnotherProcessWrites() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        try await fixture.store.items.insert(
            contentsOf: (0..<500).map { NewItem(userID: fixture.ann, title: "item \($0)") })
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        // Another process holds the write lock, mid-transaction, during the backup.
        try await shell.run(
            "BEGIN IMMEDIATE; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (\(fixture.ann.rawValue), 'uncommitted', 0, 0);"
        )
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let backup = folder.path("backup.sqlite")
        try await fixture.store.backup(to: backup)
        try await shell.run("COMMIT;")

        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        let copy = try Store(path: backup)
        #expect(try await copy.items.count(matching: ItemQuery()) == 500, "the snapshot, without the open transaction")
        #expect(try await copy.users.users().map(\.email) == ["ann@example.com"])
    }

    @Test func aBackupReplacesAnOlderBackupAtomically() async throws {
        let fixture = try await Fixture()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let backup = folder.path("daily.sqlite")
        try await fixture.store.backup(to: backup)
        try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "later"))
        try await fixture.store.backup(to: backup)
        #expect(try await Store(path: backup).items.count(matching: ItemQuery()) == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
            $0.hasPrefix(".")
        }
        #expect(leftovers.isEmpty)
    }

    @Test func aBackupNeverOverwritesTheStoreItsFilesOrAnotherDatabase() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        for own in [path, path + "-wal", path + "-shm"] {
            await #expect {
                try await fixture.store.backup(to: own)
            } throws: { ($0 as? StoreError)?.code == .invalidValue }
        }
        #expect(try await fixture.store.users.users().count == 1, "the store is intact")

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let other = folder.path("accounts.sqlite")
        let connection = try Connection(path: other)
        try connection.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
        connection.close()
        let text = folder.path("notes.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: text))
        for victim in [other, text, "/dev/null"] {
            let before = try? Data(contentsOf: URL(fileURLWithPath: victim))
            await #expect {
                try await fixture.store.backup(to: victim)
            } throws: { ($0 as? StoreError)?.code == .invalidValue }
            #expect((try? Data(contentsOf: URL(fileURLWithPath: victim))) == before)
        }
    }

    @Test func aBackupIntoAMissingFolderSaysSoAndLeavesNothing() async throws {
        let fixture = try await Fixture()
        await #expect {
            try await fixture.store.backup(to: "/nonexistent-folder-\(UUID().uuidString)/b.sqlite")
        } throws: { error in
            (error as? StoreError)?.code == .database && "\(error)".contains("folder exists")
        }
    }
}
