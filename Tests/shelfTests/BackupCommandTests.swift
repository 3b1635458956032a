import Foundation
import ShelfTestSupport
import Testing

@Suite("shelf backup, and databases that are not shelf's (end to end)")
struct BackupCommandTests {
    @Test func aBackupIsAWholeSingleFileStore() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        for index in 0..<3 {
            let added = try await shelf.run([
                "items", "add", "--db", db, "--user", "ann@example.com", "--title", "t\(index)",
            ])
            #expect(added.status == 0, "\(added.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "each command leaves the file whole")
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        let result = try await shelf.run(["backup", "--db", db, backup])
        #expect(result.status == 0, "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        let listed = try await shelf.run(["items", "list", "--db", backup])
        #expect(listed.output.split(separator: "\n").count == 3, "\(listed.output)\(listed.error)")
    }

    @Test func aBackupOverTheDatabaseItselfIsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        for target in [db, db + "-wal", "/dev/null"] {
            let result = try await shelf.run(["backup", "--db", db, target])
            #expect(result.status == 1, "\(target)")
            #expect(result.error.hasPrefix("Error: "), "\(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "one line: \(result.error)")
        }
        #expect(try await shelf.run(["users", "list", "--db", db]).output.contains("ann@example.com"))
    }

    @Test func anotherProgramsDatabaseIsRefusedUnchanged() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        let sqlite = try ChildProcess(
            "/usr/bin/sqlite3",
            [other, "CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (7);"],
            environment: [:], stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null"
        ).wait()
        #expect(sqlite == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        for command in [["items", "list"], ["users", "add", "--name", "A", "--email", "a@example.com"], ["migrate"]] {
            let result = try await shelf.run(command + ["--db", other])
            #expect(result.status == 1, "\(command)")
            #expect(result.error.contains("not a shelf"), "\(result.error)")
            #expect(result.error.contains("'invoices'"), "\(result.error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before, "not a byte changed")
        #expect(!FileManager.default.fileExists(atPath: other + "-wal"))
    }

    @Test func aTargetThatIsNoShelfBackupIsNamedPlainly() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        let csv = shelf.folder.appendingPathComponent("big.csv").path
        try Data("id,title\n1,x\n".utf8).write(to: URL(fileURLWithPath: csv))
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        #expect(
            try ChildProcess(
                "/usr/bin/sqlite3", [other, "CREATE TABLE invoices (id INTEGER PRIMARY KEY);"], environment: [:]
            ).wait() == 0)
        for target in [csv, other] {
            let before = try Data(contentsOf: URL(fileURLWithPath: target))
            let result = try await shelf.run(["backup", "--db", db, target])
            #expect(result.status == 1)
            #expect(
                result.error
                    == "Error: \(target) is not a shelf backup; choose another file (a backup replaces only an older "
                    + "shelf backup)\n", "\(result.error)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
        }
    }

    /// Another store (a shelf database opened as a store since, in WAL mode) holds data of its
    /// own, maybe newer: a backup does not replace it; an older backup it does replace (hostile
    /// tester: another store, with its newest item, replaced without a word).
    @Test func anotherStoreIsNotReplacedButAnOlderBackupIs() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        let precious = shelf.folder.appendingPathComponent("precious.sqlite").path
        #expect(
            try await shelf.run(["users", "add", "--db", precious, "--name", "Bo", "--email", "bo@example.com"]).status
                == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: precious))
        let refused = try await shelf.run(["backup", "--db", db, precious])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("\(precious) is a shelf store in use as one")
                && refused.error.contains("shelf copy --replace"), "\(refused.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: precious)) == before)
        let older = shelf.folder.appendingPathComponent("older.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, older]).status == 0)
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Cy", "--email", "cy@example.com"]).status == 0)
        let again = try await shelf.run(["backup", "--db", db, older])
        #expect(again.status == 0, "\(again.error)")
        #expect(try await ChildProcess.sqlite3Output(older, "SELECT count(*) FROM users;") == "2")
    }

    /// Issue 25: `shelf items list --db BACKUP` opened the backup as a store (WAL mode, a
    /// checkpoint), and the next `shelf backup` over it refused it as "a shelf store in use as
    /// one". A backup only read since is replaced as a backup (its stamp still matches what it
    /// holds); one written since is still refused. (Failed before: the second backup exited 1.)
    @Test func aBackupThatWasOnlyReadIsStillReplacedAsABackup() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        let listed = try await shelf.run(["items", "list", "--db", backup])
        #expect(listed.status == 0 && listed.output.contains("Moth trap"), "\(listed.output)\(listed.error)")
        let shown = try await shelf.run(["items", "show", "--db", backup, "1"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "bob@example.com", "--title", "Newer"]).status
                == 0)
        let again = try await shelf.run(["backup", "--db", db, backup])
        #expect(again.status == 0, "\(again.error)")
        #expect(
            try await ChildProcess.sqlite3Output(backup, "SELECT count(*) FROM items WHERE title = 'Newer';") == "1")
        // Written to since: a store in use as one, refused as before, and left as it is.
        let added = try await shelf.run([
            "items", "add", "--db", backup, "--user", "ann@example.com", "--title", "Only in the backup",
        ])
        #expect(added.status == 0, "\(added.error)")
        let before = try Data(contentsOf: URL(fileURLWithPath: backup))
        let refused = try await shelf.run(["backup", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("\(backup) is a shelf store in use as one"), "\(refused.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == before)
    }

    /// Hostile round 5: a backup edited by the sqlite3 shell (which leaves it in rollback-journal
    /// mode, never opened by shelf) was replaced by the next backup, the edit lost with exit 0.
    @Test func aBackupAnotherProgramWroteToIsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        _ = try await ChildProcess.sqlite3Output(backup, "UPDATE items SET title = 'Edited by hand' WHERE id = 1;")
        #expect(try await ChildProcess.sqlite3Output(backup, "PRAGMA journal_mode;") == "delete")
        let before = try Data(contentsOf: URL(fileURLWithPath: backup))
        let refused = try await shelf.run(["backup", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("\(backup) is a shelf store in use as one"), "\(refused.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == before)
    }

    /// Hostile round 12: a backup whose stamp (`PRAGMA user_version`) was cleared, then
    /// edited, was replaced by the next backup, the edit lost with exit 0 (a file without a
    /// stamp was taken for a backup of a shelf from before stamps). Only a file shelf can prove
    /// is its own untouched backup is replaced: cleared and edited, or only cleared, it is kept
    /// with what to do. (Failed before: both backups exited 0 and replaced the file.)
    @Test(arguments: [
        "PRAGMA user_version = 0; UPDATE items SET title = 'Edited by hand' WHERE id = 1;", "PRAGMA user_version = 0;",
    ])
    func aBackupWhoseStampWasClearedIsNotReplaced(edit: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        #expect(try await ChildProcess.sqlite3(backup, edit) == 0)
        #expect(try await ChildProcess.sqlite3Output(backup, "PRAGMA journal_mode;") == "delete")
        let before = try Data(contentsOf: URL(fileURLWithPath: backup))
        let refused = try await shelf.run(["backup", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("\(backup) is a shelf database without the stamp every shelf backup carries"),
            "\(refused.error)")
        #expect(refused.error.contains("move it away (or delete it) and back up again"), "\(refused.error)")
        #expect(refused.error.split(separator: "\n").count == 1, "one line: \(refused.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == before)
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        // Moved away, as the message says, the next backup goes through.
        try FileManager.default.moveItem(atPath: backup, toPath: backup + ".edited")
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
    }
}
