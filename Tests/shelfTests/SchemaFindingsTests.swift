import Foundation
import ShelfTestSupport
import Testing

/// What a hostile tester found in stores that another program changed under shelf (issues 21
/// and 25: a dropped trigger, orphaned rows, values of the wrong type), end to end.
@Suite("Stores changed by another program: the hostile tester's findings (end to end)")
struct SchemaFindingsTests {
    /// F8: a backup whose search trigger another program dropped is refused by restore, naming
    /// the trigger and what to do, the store left as it was; `shelf backup` of such a store
    /// writes nothing; `shelf copy` of it makes a store whose search works.
    @Test func aBackupMissingATriggerIsRefusedAndACopyOfItRebuildsIt() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        #expect(try await ChildProcess.sqlite3(backup, "DROP TRIGGER items_fts_after_update;") == 0)
        let before = try CopyFixture.dump(db)

        let refused = try await shelf.run(["restore", "--db", db, backup])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.error.contains("lacks the trigger items_fts_after_update"), "\(refused.error)")
        #expect(refused.error.contains("shelf copy \(backup) NEW.sqlite"), "\(refused.error)")
        #expect(refused.error.contains("Nothing was changed"), "\(refused.error)")
        #expect(try CopyFixture.dump(db) == before)
        let kept = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
            .filter { $0.contains("before-restore") }
        #expect(kept.isEmpty, "\(kept)")

        let second = shelf.folder.appendingPathComponent("second.sqlite").path
        let backedUp = try await shelf.run(["backup", "--db", backup, second])
        #expect(backedUp.status == 1)
        #expect(backedUp.error.contains("lacks the trigger items_fts_after_update"), "\(backedUp.error)")
        #expect(backedUp.error.contains("no backup was written to \(second)"), "\(backedUp.error)")
        #expect(!FileManager.default.fileExists(atPath: second))

        // A copy makes the target's schema from the migrations and rebuilds its search index.
        let copied = shelf.folder.appendingPathComponent("copied.sqlite").path
        let copy = try await shelf.run(["copy", backup, copied])
        #expect(copy.status == 0, "\(copy.error)")
        let added = try await shelf.run([
            "items", "add", "--db", copied, "--user", "bob@example.com", "--title", "Lantern repair",
        ])
        #expect(added.status == 0, "\(added.error)")
        let found = try await shelf.run(["items", "list", "--db", copied, "--query", "lantern"])
        #expect(found.status == 0, "\(found.error)")
        #expect(found.output.contains("Lantern repair"), "\(found.output)")
        let restored = try await shelf.run(["restore", "--db", db, copied])
        #expect(restored.status == 0, "\(restored.error)")
    }

    /// F13: `shelf items list` (a read) over items whose user another program deleted says
    /// what it found and what to do, not that it "stopped before writing anything"; `items
    /// show` of such an item names the missing user.
    @Test func aListOfItemsWhoseUserIsGoneSaysWhatItFoundNotWriting() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(db, "DELETE FROM users WHERE email = 'ann@example.com';") == 0)
        for json in [[], ["--json"]] {
            let listed = try await shelf.run(["items", "list", "--db", db] + json)
            #expect(listed.status == 1, "\(listed.output)")
            #expect(listed.error.contains("holds 3 items rows whose user is gone"), "\(listed.error)")
            #expect(listed.error.contains("item 1, names user 1, who no longer exists"), "\(listed.error)")
            #expect(listed.error.contains("PRAGMA foreign_key_check(items)"), "\(listed.error)")
            #expect(!listed.error.contains("writ"), "a read talks of writing: \(listed.error)")
        }
        let shown = try await shelf.run(["items", "show", "--db", db, "1"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("user 1, which no longer exists"), "\(shown.output)")
    }
}
