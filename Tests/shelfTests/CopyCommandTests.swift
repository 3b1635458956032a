import Foundation
import ShelfTestSupport
import Testing

/// A SQLite store made for copy tests: users, items and a saved view, with versions and times
/// that shelf itself would not give, notes whose bytes matter, and a deleted newest item (so
/// the item sequence is ahead of the highest ID).
enum CopyFixture {
    /// Makes the store at `path`; returns the ID the deleted item had.
    @discardableResult
    static func make(_ path: String, shelf: ShelfProcess) async throws -> Int64 {
        for (name, email) in [("Ann", "ann@example.com"), ("Bob", "bob@example.com")] {
            let added = try await shelf.run(["users", "add", "--db", path, "--name", name, "--email", email])
            #expect(added.status == 0, "\(added.error)")
        }
        for title in ["Moth trap", "Zürich notes", "Third", "Doomed"] {
            let added = try await shelf.run([
                "items", "add", "--db", path, "--user", "ann@example.com", "--title", title,
            ])
            #expect(added.status == 0, "\(added.error)")
        }
        let saved = try await shelf.run(["views", "save", "--db", path, "Moths", "--query", "moth prio:>=1"])
        #expect(saved.status == 0, "\(saved.error)")
        let sql = """
            UPDATE items SET notes = 'line one' || char(13, 10) || 'ünïcödé 🦋 ' || char(9) || 'tab', version = 7,
              created_at = 1000000000123, updated_at = 1700000000456, priority = 2 WHERE title = 'Moth trap';
            UPDATE items SET status = 'done', notes = '' WHERE title = 'Third';
            DELETE FROM items WHERE title = 'Doomed';
            """
        #expect(try await ChildProcess.sqlite3(path, sql) == 0)
        return 4
    }

    /// Every copied column of `path`'s rows, as text (text columns in hex: byte for byte).
    static func dump(_ path: String) throws -> String {
        let out = NSTemporaryDirectory() + "copy-dump-\(UUID().uuidString)"
        defer { unlink(out) }
        let sql = """
            SELECT id, hex(name), hex(email), hex(email_key), created_at FROM users ORDER BY id;
            SELECT id, user_id, hex(title), hex(notes), notes IS NULL, status, priority, created_at, updated_at, version
              FROM items ORDER BY id;
            SELECT id, hex(name), hex(name_key), hex(query_text), sort_field, sort_direction, quote(owner_id),
              created_at, updated_at, version FROM saved_views ORDER BY id;
            """
        let status = try ChildProcess(
            "/usr/bin/sqlite3", [path, sql], environment: [:], stdout: out, stderr: "/dev/null"
        ).wait()
        #expect(status == 0)
        return try String(contentsOfFile: out, encoding: .utf8)
    }
}

@Suite("shelf copy between SQLite stores (end to end)")
struct CopyCommandTests {
    @Test func aCopyKeepsEveryColumnAndLeavesTheSequenceAhead() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        let deletedID = try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("copy.sqlite").path
        let copied = try await shelf.run(["copy", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        let lines = copied.output.split(separator: "\n")
        #expect(lines.count == 3, "\(copied.output)")
        #expect(lines.first?.contains("users 2, items 3, saved_views 1") == true, "\(copied.output)")
        let fingerprints = lines.prefix(2).compactMap {
            $0.split(separator: " ").drop { $0 != "fingerprint" }.dropFirst().first
        }
        #expect(fingerprints.count == 2 && fingerprints[0] == fingerprints[1] && fingerprints[0].count == 64)
        #expect(try CopyFixture.dump(target) == CopyFixture.dump(source))
        // The search index covers the copied items.
        let found = try await shelf.run(["items", "list", "--db", target, "--query", "moth"])
        #expect(found.output.contains("Moth trap"), "\(found.output)\(found.error)")
        let folded = try await shelf.run(["items", "list", "--db", target, "--query", "zurich"])
        #expect(folded.output.contains("Zürich notes"), "\(folded.output)\(folded.error)")
        // A new item gets an ID never used in the source.
        let added = try await shelf.run(["items", "add", "--db", target, "--user", "bob@example.com", "--title", "New"])
        #expect(added.status == 0, "\(added.error)")
        let ids = try await shelf.run(["items", "list", "--db", target, "--query", "new", "--json"])
        #expect(
            ids.output.contains("\"id\":\(deletedID + 1)") || ids.output.contains("\"id\" : \(deletedID + 1)"),
            "\(ids.output)")
    }

    /// Issue 25: text that is not UTF-8 (another program stored it) crossed a SQLite → SQLite
    /// copy as it was, while a copy into PostgreSQL refused it. A copy into SQLite refuses it
    /// too, in the same words, naming FROM, the row and the column; a new TO is not made, an
    /// existing one is left as it was. (Failed before: the copy exited 0.)
    @Test func textThatIsNotUTF8IsRefusedAsACopyIntoPostgreSQLRefusesIt() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(
            try await ChildProcess.sqlite3(source, "UPDATE items SET notes = CAST(X'41FF42' AS TEXT) WHERE id = 2") == 0
        )
        let target = shelf.folder.appendingPathComponent("copy.sqlite").path
        let refused = try await shelf.run(["copy", source, target])
        #expect(refused.status == 1)
        #expect(
            refused.error
                == "Error: \(source) holds, in items row 2, column notes, bytes that are not UTF-8 text, which a shelf "
                + "store does not keep; correct that value in \(source), then copy again; nothing was copied: "
                + "\(target) is as it was\n", "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path).filter { $0.contains(".copy-") }
                == [])
        let existing = shelf.folder.appendingPathComponent("empty.sqlite").path
        #expect(try await shelf.run(["migrate", "--db", existing]).status == 0)
        let into = try await shelf.run(["copy", source, existing])
        #expect(into.status == 1)
        #expect(into.error.contains("column notes, bytes that are not UTF-8 text"), "\(into.error)")
        #expect(into.error.hasSuffix("nothing was copied: \(existing) is as it was\n"), "\(into.error)")
        #expect(try await ChildProcess.sqlite3Output(existing, "SELECT count(*) FROM users;") == "0")
    }

    @Test func aTargetThatHoldsRowsIsRefusedUnlessReplaced() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("busy.sqlite").path
        #expect(
            try await shelf.run(["users", "add", "--db", target, "--name", "Cy", "--email", "cy@example.com"]).status
                == 0)
        let before = try CopyFixture.dump(target)
        let refused = try await shelf.run(["copy", source, target])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("\(target) is not empty: it holds 1 user;") && refused.error.contains("--replace"),
            "\(refused.error)")
        #expect(try CopyFixture.dump(target) == before)
        let replaced = try await shelf.run(["copy", "--replace", source, target])
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(try CopyFixture.dump(target) == CopyFixture.dump(source))
        let same = try await shelf.run(["copy", "--replace", source, source])
        #expect(same.status == 1)
        #expect(same.error.contains("are the same database"), "\(same.error)")
    }

    /// The source's -wal, -shm or -journal (or those of another database beside it) are not a
    /// place for a copy: SQLite would take the copy for part of that database and remove or
    /// replay it (seen: "Copied: both sides match.", then the copy gone, or the store unopenable).
    @Test func aCopyIntoADatabasesOwnFilesIsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        try await CopyFixture.make(other, shelf: shelf)
        let before = try CopyFixture.dump(source)
        for target in [
            source + "-wal", source + "-journal", source + "-shm", "sqlite:" + source + "-wal", other + "-journal",
        ] {
            let refused = try await shelf.run(["copy", source, target])
            #expect(refused.status == 1, "\(target): \(refused.output)")
            #expect(refused.error.contains("refusing to copy into"), "\(target): \(refused.error)")
            #expect(
                !FileManager.default.fileExists(atPath: target.replacingOccurrences(of: "sqlite:", with: "") + "-shm"))
        }
        #expect(!FileManager.default.fileExists(atPath: source + "-journal"))
        #expect(!FileManager.default.fileExists(atPath: other + "-journal"))
        #expect(try CopyFixture.dump(source) == before)
        #expect(try await shelf.run(["items", "list", "--db", source]).status == 0)
    }

    /// A row another program wrote with text in an integer column stops the copy, naming the
    /// row; a target that did not exist is not left behind.
    @Test func aCopyThatFailsLeavesNoNewFile() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(source, "UPDATE items SET updated_at = 'yesterday' WHERE id = 2;") == 0)
        let target = shelf.folder.appendingPathComponent("new.sqlite").path
        let failed = try await shelf.run(["copy", source, target])
        #expect(failed.status == 1)
        #expect(
            failed.error.contains("items row 2 in \(source) holds text 'yesterday' in updated_at")
                && failed.error.contains("nothing was copied: \(target) is as it was"), "\(failed.error)")
        let left = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
        #expect(!left.contains { $0.hasPrefix("new.sqlite") || $0.hasPrefix(".new.sqlite") }, "\(left)")
    }

    @Test func replacingIsRefusedWhileAnotherProcessHasTheTargetOpen() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("open.sqlite").path
        #expect(
            try await shelf.run(["users", "add", "--db", target, "--name", "Cy", "--email", "cy@example.com"]).status
                == 0)
        let watcher = try RunningShelf(["watch", "items", "--db", target])
        #expect(await watcher.waitForLines(1).count >= 1)
        let before = try CopyFixture.dump(target)
        let refused = try await shelf.run(["copy", "--replace", source, target])
        #expect(refused.status == 1)
        #expect(
            refused.error.contains("is open in process") && refused.error.contains("watch items"), "\(refused.error)")
        #expect(try CopyFixture.dump(target) == before)
        #expect(watcher.interrupt() == 130)
    }

    @Test func aTargetThatChangesRowsAsTheyAreWrittenIsRolledBackAndExitsOne() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let target = shelf.folder.appendingPathComponent("odd.sqlite").path
        #expect(try await shelf.run(["migrate", "--db", target]).status == 0)
        // Another program's trigger changes what is written: the read-back differs.
        let trigger =
            "CREATE TRIGGER odd AFTER INSERT ON users BEGIN UPDATE users SET name = 'x' WHERE id = new.id; END;"
        #expect(try await ChildProcess.sqlite3(target, trigger) == 0)
        let copied = try await shelf.run(["copy", source, target])
        #expect(copied.status == 1, "\(copied.output)\(copied.error)")
        #expect(copied.error.contains("differs") && copied.error.contains("nothing was committed"), "\(copied.error)")
        let lines = copied.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("users 2") && lines[1].contains("users 2"), "\(copied.output)")
        #expect(try CopyFixture.dump(target).isEmpty, "nothing was committed")
    }

    /// What a killed copy into a new file left beside it (its hidden work file and companions)
    /// is removed by the next copy into that path; it piled up before (hostile tester).
    @Test func theNextCopyRemovesWhatAKilledOneLeft() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let folder = shelf.folder.path
        let left = folder + "/.copy.sqlite.copy-1E2B5A9C-0000-0000-0000-000000000000"
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.createFile(atPath: left + suffix, contents: Data("x".utf8)))
            // Older than a moment: a work file just made may not be claimed yet.
            var times = [timespec(tv_sec: time(nil) - 60, tv_nsec: 0), timespec(tv_sec: time(nil) - 60, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, left + suffix, &times, 0) == 0)
        }
        let target = folder + "/copy.sqlite"
        let copied = try await shelf.run(["copy", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix(".copy.sqlite.")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A writer commits pairs of items while the copy runs: the copy holds whole pairs only
    /// (one snapshot), and the writer is never stopped.
    @Test func aCopyReadsOneSnapshotWhileAWriterCommits() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(50_000)) == 0)
        let pairs = (0..<3000).map { index in
            "BEGIN; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (2, 'pair a\(index)', 1, 1); "
                + "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (2, 'pair b\(index)', 1, 1); COMMIT;"
        }.joined(separator: "\n")
        let script = shelf.folder.appendingPathComponent("pairs.sql").path
        try Data((".timeout 60000\n" + pairs).utf8).write(to: URL(fileURLWithPath: script))
        let writer = try ChildProcess("/usr/bin/sqlite3", [source], environment: [:], stdin: script)
        let target = shelf.folder.appendingPathComponent("snapshot.sqlite").path
        let copied = try await shelf.run(["copy", source, target])
        let writerStatus = await Task.detached { writer.wait() }.value
        #expect(copied.status == 0, "\(copied.error)")
        #expect(writerStatus == 0, "the writer was never locked out")
        let out = shelf.folder.appendingPathComponent("pairs.out").path
        #expect(
            try ChildProcess(
                "/usr/bin/sqlite3", [target, "SELECT count(*) FROM items WHERE title LIKE 'pair %';"],
                environment: [:], stdout: out
            ).wait() == 0)
        let count = Int(
            try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(count.map { $0 % 2 == 0 } == true, "whole pairs only: \(String(describing: count))")
    }

    @Test func anInterruptedCopyLeavesTheTargetAsItWas() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(200_000)) == 0)
        let target = shelf.folder.appendingPathComponent("kept.sqlite").path
        #expect(
            try await shelf.run(["users", "add", "--db", target, "--name", "Cy", "--email", "cy@example.com"]).status
                == 0)
        let before = try CopyFixture.dump(target)
        let stderr = shelf.folder.appendingPathComponent("copy.err").path
        let copy = try RunningShelf(["copy", "--replace", source, target], stderr: stderr)
        // The copy's transaction is under way once it holds the target's write lock (its rows
        // stay in its page cache until the commit); give it a moment to write some.
        #expect(await CopyFixture.waitForWriteLock(of: target))
        try await Task.sleep(for: .milliseconds(500))
        #expect(copy.interrupt() == 130)
        let error = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(error.contains("Interrupted: nothing was copied"), "\(error)")
        #expect(try CopyFixture.dump(target) == before)
    }
}

extension CopyCommandTests {
    /// A store made at the new path while a copy into that path runs (a second copy, or any
    /// program) is kept: the copy used to rename its finished file over it, silently.
    @Test func aFileMadeAtTheNewPathDuringTheCopyIsKept() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(100_000)) == 0)
        let target = shelf.folder.appendingPathComponent("new.sqlite").path
        let stderr = shelf.folder.appendingPathComponent("copy.err").path
        // Under way: its hidden file beside the target exists, and it is stopped there (SIGSTOP)
        // while the other store is made, so a loaded machine cannot let it finish first (CI:
        // the page copy of 100,000 items ended before a polling test task saw its file). A
        // copy that ended before its file was seen is tried again, up to three times.
        var copy = try RunningShelf(["copy", source, target], stderr: stderr)
        var started = await WorkFileWatch.stopOnceAFileAppears(
            in: shelf.folder.path, prefix: ".new.sqlite.copy-", pid: copy.pid)
        for _ in 0..<2 where !started {
            _ = await copy.waitForExit(timeout: .seconds(600))
            try? FileManager.default.removeItem(atPath: target)
            copy = try RunningShelf(["copy", source, target], stderr: stderr)
            started = await WorkFileWatch.stopOnceAFileAppears(
                in: shelf.folder.path, prefix: ".new.sqlite.copy-", pid: copy.pid)
        }
        try #require(started, "the copy started")
        let made: String
        do {
            defer { kill(copy.pid, SIGCONT) }
            #expect(
                try await shelf.run(["users", "add", "--db", target, "--name", "Cy", "--email", "cy@example.com"])
                    .status == 0)
            made = try CopyFixture.dump(target)
        }
        #expect(await copy.waitForExit(timeout: .seconds(600)) == 1)
        let error = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        #expect(error.contains("was made by another process while this copy ran"), "\(error)")
        #expect(try CopyFixture.dump(target) == made, "the file made meanwhile is as it was")
        let left = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
        #expect(!left.contains { $0.hasPrefix(".new.sqlite") }, "\(left)")
    }
}

extension CopyFixture {
    /// SQL that adds `count` items to Ann (user 1), with notes of a few words.
    static func manyItems(_ count: Int) -> String {
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
        INSERT INTO items (user_id, title, notes, created_at, updated_at)
        SELECT 1, 'bulk ' || i, 'notes of item ' || i || ' with a few words', i, i FROM n;
        """
    }

    /// Waits (up to 60 s, on a thread of its own) until another process holds the write
    /// lock of the WAL database at `path` (SQLite's lock byte 120 of its `-shm`).
    static func waitForWriteLock(of path: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + .seconds(180)
                while ContinuousClock.now < deadline {
                    let descriptor = open(path + "-shm", O_RDONLY | O_CLOEXEC)
                    if descriptor >= 0 {
                        var lock = flock()
                        lock.l_type = Int16(F_WRLCK)
                        lock.l_whence = Int16(SEEK_SET)
                        lock.l_start = 120
                        lock.l_len = 1
                        let held = fcntl(descriptor, F_GETLK, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
                        close(descriptor)
                        if held { return continuation.resume(returning: true) }
                    }
                    usleep(2000)
                }
                continuation.resume(returning: false)
            }
        }
    }
}
