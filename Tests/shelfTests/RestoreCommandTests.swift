import Foundation
import ShelfTestSupport
import Testing

@Suite("shelf restore (end to end)")
struct RestoreCommandTests {
    @Test func aRestoreSwapsTheBackupInAndKeepsTheReplacedStore() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        let backedUp = try CopyFixture.dump(db)
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Cy", "--email", "cy@example.com"]).status == 0)
        let later = try CopyFixture.dump(db)
        let restored = try await shelf.run(["restore", "--db", db, backup])
        #expect(restored.status == 0, "\(restored.error)")
        #expect(try CopyFixture.dump(db) == backedUp)
        let kept = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
            .filter { $0.hasPrefix("shelf.sqlite.before-restore-") }
        #expect(kept.count == 1, "\(kept)")
        #expect(restored.output.contains(try #require(kept.first)), "\(restored.output)")
        #expect(try CopyFixture.dump(shelf.folder.appendingPathComponent(try #require(kept.first)).path) == later)
    }

    @Test func aBackupThatIsNotASoundShelfIsRefusedAndTheStoreUnchanged() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let before = try CopyFixture.dump(db)
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        #expect(try await ChildProcess.sqlite3(other, "CREATE TABLE invoices (id INTEGER PRIMARY KEY);") == 0)
        let csv = shelf.folder.appendingPathComponent("x.csv").path
        try Data("id,title\n1,x\n".utf8).write(to: URL(fileURLWithPath: csv))
        let newer = shelf.folder.appendingPathComponent("newer.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, newer]).status == 0)
        #expect(
            try await ChildProcess.sqlite3(
                newer, "INSERT INTO shelf_migrations (name, checksum, applied_at) VALUES ('9999_future', 'x', 0);") == 0
        )
        for (backup, expected) in [
            (other, "is not a shelf backup"), (csv, "is a text file, not a shelf backup"), (newer, "newer"),
            (shelf.folder.appendingPathComponent("missing").path, "no backup at"),
        ] {
            let result = try await shelf.run(["restore", "--db", db, backup])
            #expect(result.status == 1, "\(backup)")
            #expect(result.error.contains(expected), "\(result.error)")
            #expect(try CopyFixture.dump(db) == before)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path).allSatisfy {
                !$0.contains("restore")
            })
    }

    @Test func aRestoreIsRefusedWhileAProcessHasTheStoreOpen() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        let watcher = try RunningShelf(["watch", "items", "--db", db])
        #expect(await watcher.waitForLines(1).count >= 1)
        let refused = try await shelf.run(["restore", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("is open in process") && refused.error.contains("watch items"), "\(refused.error)")
        #expect(watcher.interrupt() == 130)
        #expect(try await shelf.run(["restore", "--db", db, backup]).status == 0)
    }

    /// `kill -9` of `shelf restore` at moments spread over its run: the store is each time
    /// either the old one or the whole backup, and sound.
    @Test func aKilledRestoreLeavesTheOldStoreOrTheWholeBackup() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let template = shelf.folder.appendingPathComponent("template.sqlite").path
        try await CopyFixture.make(template, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await ChildProcess.sqlite3(template, CopyFixture.manyItems(60_000)) == 0)
        #expect(try await shelf.run(["backup", "--db", template, backup]).status == 0)
        #expect(try await ChildProcess.sqlite3(template, "DELETE FROM items WHERE id > 100;") == 0)
        let old = try CopyFixture.dump(template)
        let new = try CopyFixture.dump(backup)
        #expect(old != new)
        // How long a whole restore takes here, to spread the kills over it.
        let db = shelf.databasePath
        try FileManager.default.copyItem(atPath: template, toPath: db)
        let start = ContinuousClock.now
        #expect(try await shelf.run(["restore", "--db", db, backup]).status == 0)
        let whole = ContinuousClock.now - start
        var outcomes: [String: Int] = [:]
        for attempt in 0..<8 {
            try? FileManager.default.removeItem(atPath: db)
            try FileManager.default.copyItem(atPath: template, toPath: db)
            let restore = try RunningShelf(["restore", "--db", db, backup])
            try await Task.sleep(for: whole * (Double(attempt) / 6.0))
            _ = restore.stop(SIGKILL)
            let now = try CopyFixture.dump(db)
            #expect(now == old || now == new, "attempt \(attempt): half restored")
            outcomes[now == old ? "old" : "new", default: 0] += 1
            let check = shelf.folder.appendingPathComponent("check-\(attempt)").path
            let integrity = try ChildProcess(
                "/usr/bin/sqlite3", [db, "PRAGMA integrity_check;"], environment: [:], stdout: check
            ).wait()
            #expect(integrity == 0)
            #expect(try String(contentsOfFile: check, encoding: .utf8) == "ok\n")
        }
        // A restore after the kills finishes, and clears what killed ones left.
        #expect(try await shelf.run(["restore", "--db", db, backup]).status == 0)
        #expect(try CopyFixture.dump(db) == new)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path).allSatisfy {
                !$0.hasPrefix(".shelf.sqlite.restore-")
            })
        print("kill -9 during restore: \(outcomes)")
    }
}
