import Foundation
import ShelfTestSupport
import Testing

/// What a hostile tester found in `shelf restore` (issue 25), end to end through the binary.
@Suite("shelf restore: the hostile tester's findings (end to end)")
struct RestoreFindingsTests {
    /// The store's path is a symbolic link: the store it points to is restored (and the old
    /// one kept beside it), the link stays a link.
    @Test func aRestoreThroughASymbolicLinkRestoresTheStoreItPointsTo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let data = shelf.folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let real = data.appendingPathComponent("real.sqlite").path
        try await CopyFixture.make(real, shelf: shelf)
        let link = shelf.folder.appendingPathComponent("link.sqlite").path
        // Relative, as `ln -s data/real.sqlite link.sqlite` makes it.
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "data/real.sqlite")
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", link, backup]).status == 0)
        let backedUp = try CopyFixture.dump(real)
        #expect(
            try await shelf.run(["users", "add", "--db", link, "--name", "Cy", "--email", "cy@example.com"]).status == 0
        )
        let later = try CopyFixture.dump(real)
        #expect(later != backedUp)

        let restored = try await shelf.run(["restore", "--db", link, backup])
        #expect(restored.status == 0, "\(restored.error)")
        let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
        #expect(kind == .typeSymbolicLink, "the link was replaced by a \(String(describing: kind))")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "data/real.sqlite")
        #expect(try CopyFixture.dump(real) == backedUp)
        #expect(try CopyFixture.dump(link) == backedUp)
        let kept = try FileManager.default.contentsOfDirectory(atPath: data.path)
            .filter { $0.hasPrefix("real.sqlite.before-restore-") }
        #expect(kept.count == 1, "\(kept)")
        #expect(try CopyFixture.dump(data.appendingPathComponent(try #require(kept.first)).path) == later)
    }

    /// Positions in the change log never go back across a restore: the restored store's next
    /// change comes after the old store's last one, with a gap between, so a client resuming
    /// from an old position reads again in full (`event: reset`) instead of taking other rows
    /// under numbers it has seen (hostile tester: `Last-Event-ID` then missed changes).
    @Test func aRestoreContinuesTheChangeLogsPositions() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        let head = "SELECT seq FROM sqlite_sequence WHERE name = 'shelf_change_log';"
        let atBackup = try #require(Int(try await ChildProcess.sqlite3Output(db, head)))
        for title in ["gone 1", "gone 2", "gone 3"] {
            #expect(
                try await shelf.run(["items", "add", "--db", db, "--user", "ann@example.com", "--title", title]).status
                    == 0)
        }
        let before = try #require(Int(try await ChildProcess.sqlite3Output(db, head)))
        #expect(before > atBackup)

        let restored = try await shelf.run(["restore", "--db", db, backup])
        #expect(restored.status == 0, "\(restored.error)")
        #expect(
            try await shelf.run(["items", "add", "--db", db, "--user", "ann@example.com", "--title", "new"]).status
                == 0)
        let first = try #require(
            Int(
                try await ChildProcess.sqlite3Output(
                    db, "SELECT min(seq) FROM shelf_change_log WHERE seq > \(atBackup);")))
        #expect(
            first > before + 1, "the first change after the restore is \(first); the old store's last was \(before)")
        let reused = try await ChildProcess.sqlite3Output(
            db, "SELECT count(*) FROM shelf_change_log WHERE seq > \(atBackup) AND seq <= \(before);")
        #expect(reused == "0")
    }

    /// A backup holding items whose user is gone (deleted with foreign keys off) is refused,
    /// naming the table and how many rows; the store is unchanged.
    @Test func aBackupWithItemsWhoseUserIsGoneIsRefusedNamingThem() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        // sqlite3 leaves foreign keys off: Ann goes, her 3 items stay.
        #expect(try await ChildProcess.sqlite3(backup, "DELETE FROM users WHERE email = 'ann@example.com';") == 0)
        #expect(try await ChildProcess.sqlite3(db, "DELETE FROM items WHERE id = 2;") == 0)
        let before = try CopyFixture.dump(db)

        let refused = try await shelf.run(["restore", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("3 items rows whose user is gone"), "\(refused.error)")
        #expect(refused.error.contains("nothing was changed"), "\(refused.error)")
        #expect(try CopyFixture.dump(db) == before)
    }

    /// `shelf backup` of a store holding items whose user is gone refuses, writing nothing:
    /// restore would refuse that backup, found out only when it is needed (the hostile
    /// tester's F5: the backup succeeded without a word). An older backup at the path stays.
    @Test func aBackupOfItemsWhoseUserIsGoneIsRefusedBeforeItCannotBeRestored() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        let older = try CopyFixture.dump(backup)
        // An empty path says so (it said "cannot move the backup into place at : No such file").
        let empty = try await shelf.run(["backup", "--db", db, ""])
        #expect(empty.status != 0)
        #expect(empty.error.contains("the backup's path is empty"), "\(empty.error)")
        #expect(try await ChildProcess.sqlite3(db, "DELETE FROM users WHERE email = 'ann@example.com';") == 0)
        let refused = try await shelf.run(["backup", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("holds 3 items rows whose user is gone"), "\(refused.error)")
        #expect(refused.error.contains("PRAGMA foreign_key_check"), "\(refused.error)")
        #expect(refused.error.contains("no backup was written to \(backup)"), "\(refused.error)")
        #expect(try CopyFixture.dump(backup) == older)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
            .filter { $0.hasPrefix("backup.sqlite") && $0 != "backup.sqlite" }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // Shown, the item says its user is gone rather than "?"; as JSON, null.
        let shown = try await shelf.run(["items", "show", "--db", db, "1"])
        #expect(shown.output.contains("Owner:     user 1, which no longer exists"), "\(shown.output)")
        let json = try await shelf.run(["items", "show", "--db", db, "1", "--json"])
        #expect(json.output.contains("\"user\":null"), "\(json.output)")
    }

    /// A backup over an older backup that another process writes to while the backup runs
    /// (it took the file for a store) keeps what was written and says so; the rename at the
    /// end replaced it without a word (the hostile tester's item added there was lost).
    @Test func aBackupTargetWrittenMeanwhileIsKept() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        // Big enough that the backup's VACUUM INTO takes a while: 300 notes of 1 MB.
        #expect(
            try await ChildProcess.sqlite3(
                db,
                "INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at) "
                    + "SELECT 1, 'big', printf('%.*c', 1000000, 'x'), 'open', 0, 0, 0 "
                    + "FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) SELECT i FROM n);"
            ) == 0)
        let backup = shelf.folder.appendingPathComponent("bk.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        // The write must fall between the backup's start and its move into place. A test task
        // polling for the work file can be held off the CPU for longer than the whole backup
        // (ci12: it never saw the file), so one shell does the watching and the writing, and
        // says whether the work file was still there once the write was done: only then is
        // the write known to be "meanwhile". A run where it was not is tried again.
        let script = """
            shelf="$1"; db="$2"; cd "$3" || exit 90
            "$shelf" backup --db "$db" bk.sqlite 2>backup.log &
            pid=$!
            while :; do
              set -- .bk.sqlite.backup-*
              [ -e "$1" ] && break
              kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit 91; }
            done
            /usr/bin/sqlite3 bk.sqlite "UPDATE items SET title = 'written meanwhile' WHERE id = 1;" || exit 92
            set -- .bk.sqlite.backup-*
            [ -e "$1" ] || { wait "$pid"; exit 93; }
            wait "$pid"
            """
        var status: Int32 = -1
        for _ in 0..<5 {
            let arguments = ["-c", script, "sh", ShelfProcess.executable.path, db, shelf.folder.path]
            let home = shelf.folder.appendingPathComponent("home").path
            // Waited for on a thread of its own, not on one of the few cooperative threads.
            status = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result { () throws -> Int32 in
                            try ChildProcess(
                                "/bin/sh", arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": home]
                            ).wait()
                        })
                }
            }
            if status != 91 && status != 93 { break }
        }
        let log = shelf.folder.appendingPathComponent("backup.log").path
        let error = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 1, "\(error)")
        #expect(error.contains("was changed by another process while the backup ran"), "\(error)")
        let title = try await shelf.run(["items", "show", "--db", backup, "1"])
        #expect(title.output.contains("written meanwhile"), "\(title.output)")
    }

    /// The restored store keeps the replaced one's permissions: a store shared by a group
    /// (0664) became 0644 after a restore, and the group could no longer write.
    @Test func aRestoredStoreKeepsThePermissionsOfTheOneItReplaced() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        #expect(chmod(db, 0o664) == 0)
        let restored = try await shelf.run(["restore", "--db", db, backup])
        #expect(restored.status == 0, "\(restored.error)")
        var status = stat()
        #expect(stat(db, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o664, "mode \(String(status.st_mode & 0o777, radix: 8))")
    }

    /// `shelf copy` from a store holding such rows says what is wrong with which rows,
    /// instead of a bare foreign-key failure.
    @Test func aCopyOfAStoreWithItemsWhoseUserIsGoneNamesThem() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(db, "DELETE FROM users WHERE email = 'ann@example.com';") == 0)
        let target = shelf.folder.appendingPathComponent("copy.sqlite").path
        let refused = try await shelf.run(["copy", db, target])
        #expect(refused.status == 1)
        #expect(refused.error.contains("holds items rows whose user is gone"), "\(refused.error)")
        #expect(refused.error.contains("row 1 names user 1"), "\(refused.error)")
        // Finding F7: the outcome is said once ("nothing was written … nothing was copied" before).
        #expect(refused.error.contains("nothing was copied: \(target) is as it was"), "\(refused.error)")
        #expect(refused.error.components(separatedBy: "nothing was").count == 2, "said once: \(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// `shelf export items` of a store holding items whose user is gone: refused before a
    /// byte is written, naming an item, its missing user and how to list the rest (it used to
    /// leave them out without a word). Another owner's selection exports as before.
    @Test func anExportOfItemsWhoseUserIsGoneSaysSoAndWritesNothing() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(db, "DELETE FROM users WHERE email = 'ann@example.com';") == 0)
        let target = shelf.folder.appendingPathComponent("items.csv").path
        for destination in [["-o", target], []] {
            let refused = try await shelf.run(["export", "items", "--db", db, "--format", "csv"] + destination)
            #expect(refused.status == 1, "\(refused.error)")
            #expect(refused.error.contains("holds 3 items rows whose user is gone"), "\(refused.error)")
            #expect(refused.error.contains("the first, item 1, names user 1, who no longer exists"))
            #expect(refused.error.contains("shelf read none of the items"), "\(refused.error)")
            #expect(
                destination.isEmpty
                    ? !refused.error.contains("written")
                    : refused.error.contains("\(target) was not written (a file that was there is left as it was)"),
                "\(refused.error)")
            #expect(refused.error.contains("PRAGMA foreign_key_check(items)"), "\(refused.error)")
            #expect(refused.output.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        let bobs = try await shelf.run([
            "export", "items", "--db", db, "--format", "csv", "--query", "owner:bob@example.com",
        ])
        #expect(bobs.status == 0, "\(bobs.error)")
        #expect(!bobs.output.isEmpty)
    }

    /// A backup whose data breaks a migration of this shelf: the message says what happened
    /// to which file and what a person restoring can do, not how to fix the migration's SQL.
    @Test func aBackupWhoseMigrationFailsSaysWhatToDo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("old.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        // Pretend the backup predates the last migration, with a table that makes it fail.
        let last = try lastMigration(backup)
        #expect(
            try await ChildProcess.sqlite3(
                backup, "DELETE FROM shelf_migrations WHERE name = '\(last.name)'; \(last.blocker)") == 0)
        let refused = try await shelf.run(["restore", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("old.sqlite was written by an older shelf"), "\(refused.error)")
        #expect(!refused.error.contains("fix the SQL"), "\(refused.error)")
        #expect(refused.error.contains("Nothing was changed"), "\(refused.error)")
    }

    /// A damaged backup: what is damaged, and a way out that is not "restore a backup".
    @Test func aDamagedBackupSaysWhatToDo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        try await CopyFixture.make(db, shelf: shelf)
        let backup = shelf.folder.appendingPathComponent("damaged.sqlite").path
        #expect(try await shelf.run(["backup", "--db", db, backup]).status == 0)
        try damage(backup)
        let refused = try await shelf.run(["restore", "--db", db, backup])
        #expect(refused.status == 1)
        #expect(refused.error.contains("damaged.sqlite is damaged"), "\(refused.error)")
        #expect(refused.error.contains(".recover"), "\(refused.error)")
        #expect(!refused.error.contains("restore from another backup"), "\(refused.error)")
    }

    /// The name of this shelf's last SQLite migration, and SQL that makes it fail again.
    private func lastMigration(_ path: String) throws -> (name: String, blocker: String) {
        let out = NSTemporaryDirectory() + "migration-\(UUID().uuidString)"
        defer { unlink(out) }
        _ = try ChildProcess(
            "/usr/bin/sqlite3", [path, "SELECT name FROM shelf_migrations ORDER BY name DESC LIMIT 1;"],
            environment: [:], stdout: out
        ).wait()
        let name = try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        // A migration that creates or remakes something fails when a view of that name is in
        // the way: make it fail on the first name it creates.
        let sqlFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations/\(name).sql")
        let sql = try String(contentsOf: sqlFile, encoding: .utf8)
        // A migration that only adds a column (0018) fails again when the column is there.
        guard let created = sql.firstMatch(of: /CREATE (?:TABLE|INDEX|TRIGGER|VIEW)(?: IF NOT EXISTS)? (\w+)/)?.1
        else {
            try #require(sql.contains(/ALTER TABLE \w+ ADD COLUMN \w+/), "\(name) neither creates nor adds a column")
            return (name, "")
        }
        // Everything it made goes (an old backup has none of it), the first name blocked.
        let everything = sql.matches(of: /CREATE (?:TABLE|INDEX|TRIGGER|VIEW)(?: IF NOT EXISTS)? (\w+)/).map {
            String($0.1)
        }
        let dropped = everything.reversed().map {
            "DROP TABLE IF EXISTS \($0); DROP INDEX IF EXISTS \($0); DROP TRIGGER IF EXISTS \($0);"
        }.joined(separator: " ")
        return (name, dropped + " CREATE VIEW \(created) AS SELECT 1;")
    }

    /// Overwrites a page in the middle of `path` with garbage (a copy of its first page's
    /// tail), so integrity_check fails but the file still opens.
    private func damage(_ path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let pageSize: UInt64 = 4096
        #expect(size >= pageSize * 4, "the backup is \(size) bytes")
        try handle.seek(toOffset: (size / pageSize - 2) * pageSize + 100)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 2000))
    }
}
