import Foundation
import ShelfReactive
import ShelfTestSupport
import Testing

/// The edges of `shelf copy` that hostile round 9 found (issue 25, F6-F10), through the real
/// binary: a damaged search index carried by the page copy, a full disk on the row path, the
/// `-wal` and `-shm` a reader of another user's store left, a killed copy's work file, and a
/// NUL in a source whose refusing trigger was dropped.
@Suite("shelf copy: hostile round 9's edges")
struct CopyEdgeFindingsTests {
    /// A source whose search index another program damaged (its pages broken, or emptied with
    /// FTS5's own 'delete-all', which FTS5's structural check passes) is copied page by page
    /// with the index as it is: the copy's index is found damaged, built again from its rows,
    /// and said. The copy said "both sides match" and carried the damage before.
    @Test(arguments: ["broken pages", "delete-all"])
    func aDamagedSearchIndexIsBuiltAgainInThePageCopy(_ damage: String) async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(2000)) == 0)
        let sql =
            damage == "delete-all"
            ? "INSERT INTO items_fts (items_fts) VALUES ('delete-all');"
            : "UPDATE items_fts_data SET block = zeroblob(length(block)) WHERE id > 10;"
        #expect(try await ChildProcess.sqlite3(source, sql) == 0)
        let target = shelf.folder.appendingPathComponent("copy.sqlite").path
        let copied = try await shelf.run(["copy", "--verbose", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(copied.error.contains("copied page by page"), "\(copied.error)")
        #expect(copied.output.contains("Copied: both sides match."), "\(copied.output)")
        #expect(
            copied.error.contains("Note: the search index of \(source) is damaged (items_fts: "), "\(copied.error)")
        #expect(
            copied.error.contains(
                "the copy's was built again from its rows, so a search of \(target) finds every item. \(source)'s "
                    + "stays damaged until it is built again: sqlite3 \(source) \"INSERT INTO items_fts (items_fts) "
                    + "VALUES ('rebuild');\" does"), "\(copied.error)")
        // FTS5's full check, against every row's text, passes in the copy.
        let checked = try await ChildProcess.sqlite3Output(
            target,
            """
            INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1);
            INSERT INTO items_trigram (items_trigram, rank) VALUES ('integrity-check', 1);
            PRAGMA integrity_check;
            """)
        #expect(checked == "ok", "\(checked)")
        let found = try await shelf.run(["items", "list", "--db", target, "--query", "zurich"])
        #expect(found.output.contains("Zürich notes"), "\(found.output)\(found.error)")
        #expect(try CopyFixture.dump(target) == CopyFixture.dump(source))
        // An undamaged source's copy says nothing of it.
        let clean = shelf.folder.appendingPathComponent("clean.sqlite").path
        let again = try await shelf.run(["copy", target, clean])
        #expect(again.status == 0 && again.error.isEmpty, "\(again.error)")
    }

    /// A full disk while the row copy's file is merged (its `-wal` into the file, at the end)
    /// said a warning naming a `-wal` that was already removed, and not that nothing was
    /// copied. Now each failure says what happened, that no file was made, and what to do;
    /// and nothing is left on the disk. Tried at tmpfs sizes from too small for the rows to
    /// enough, so that one of them fails in the merge.
    @Test(.enabled(if: Tmpfs.canMount(), "mounts a tmpfs (root, with the right to mount)"))
    func aFullDiskOnTheRowPathSaysNothingWasCopied() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        // Row by row (a trigger dropped), with pages enough to fill a small disk.
        let fill =
            "UPDATE items SET notes = hex(randomblob(3000)) WHERE id % 2 = 0; DROP TRIGGER items_fts_after_update;"
        #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(1000) + fill) == 0)
        let disk = shelf.folder.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        var merges = 0
        var copies = 0
        // From half the source's size (too small for the rows) to two and a half times (room
        // for the rows, then their merge), by quarters: about 1.2 to 1.8 times fails in the merge.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) / 1024
        for kilobytes in stride(from: size / 2, through: size * 5 / 2, by: size / 4) {
            #expect(
                try ChildProcess(
                    "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", disk], environment: [:]
                ).wait() == 0)
            defer { _ = try? ChildProcess("/bin/umount", [disk], environment: [:]).wait() }
            let target = disk + "/copy.sqlite"
            let copied = try await shelf.run(["copy", source, target])
            let left = try FileManager.default.contentsOfDirectory(atPath: disk)
            if copied.status == 0 {
                copies += 1
                #expect(left == ["copy.sqlite"], "\(kilobytes) kB: \(left)")
                continue
            }
            #expect(copied.status == 1)
            #expect(left.isEmpty, "\(kilobytes) kB: \(left)")
            #expect(
                copied.error.hasPrefix("Error: the disk holding \(target) is full"), "\(kilobytes) kB: \(copied.error)")
            #expect(copied.error.contains("nothing was copied"), "\(kilobytes) kB: \(copied.error)")
            #expect(!copied.error.contains("-wal"), "names a file that is gone: \(copied.error)")
            if copied.error.contains("merging its write-ahead log") {
                merges += 1
                #expect(
                    copied.error.contains(
                        "nothing was copied: \(target) was not made, and the unfinished copy was removed. Free at least "
                    ),
                    "\(copied.error)")
                #expect(copied.error.hasSuffix(" MB more in \(disk), or copy to another disk\n"), "\(copied.error)")
            }
        }
        #expect(merges > 0, "no size failed in the merge")
        #expect(copies > 0, "no size was enough")
    }

    /// Another user's store read by a copy (its file not writable here, its folder writable):
    /// SQLite made its `-wal` and `-shm` as this user, and left them, so the store's owner
    /// could no longer write it ("attempt to write a readonly database"). Now they go when the
    /// copy closes the store.
    @Test(.enabled(if: getuid() == 0 && access("/usr/sbin/runuser", X_OK) == 0, "runs as other users"))
    func aCopyByAnotherUserLeavesNoWALTheOwnerCannotWrite() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let shared = shelf.folder.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(chmod(shelf.folder.path, 0o755) == 0 && chmod(shared, 0o777) == 0)
        // The binary where other users may run it.
        let binary = shelf.folder.appendingPathComponent("shelf").path
        try FileManager.default.copyItem(atPath: ShelfProcess.executable.path, toPath: binary)
        let source = shared + "/theirs.sqlite"
        try await CopyFixture.make(source, shelf: shelf)
        #expect(chown(source, 1, 1) == 0)  // daemon's
        let target = shared + "/mine.sqlite"
        let copy = try ChildProcess(
            "/usr/sbin/runuser", ["-u", "nobody", "--", binary, "copy", source, target],
            environment: ["PATH": "/usr/bin:/bin"], stdout: "/dev/null"
        ).wait()
        #expect(copy == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: shared).sorted()
        #expect(left == ["mine.sqlite", "theirs.sqlite"], "\(left)")
        let added = try ChildProcess(
            "/usr/sbin/runuser",
            [
                "-u", "daemon", "--", binary, "items", "add", "--db", source, "--user", "ann@example.com", "--title",
                "Mine",
            ],
            environment: ["PATH": "/usr/bin:/bin"], stdout: "/dev/null"
        ).wait()
        #expect(added == 0, "the owner cannot write its store")
    }

    /// A copy killed with `kill -9` left its work file until the next copy to that same name.
    /// Now the next copy into any file of the folder, and the next open of a store in it,
    /// removes it and says so; a work file a running (here stopped) copy holds is never
    /// removed.
    @Test func aKilledCopysWorkFileGoesAtTheNextCopyIntoTheFolderOrTheNextOpen() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(
            try await BlockingWork.run { _ in try ChildProcess.sqlite3(source, CopyFixture.manyItems(200_000)) } == 0)
        let folder = shelf.folder.path
        func workFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".big.sqlite.copy-") }
                .filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && !$0.hasSuffix("-journal") }
        }
        let small = folder + "/small.sqlite"
        #expect(
            try await shelf.run(["users", "add", "--db", small, "--name", "Cy", "--email", "cy@example.com"]).status
                == 0)

        for next in ["copy", "open"] {
            let running = try RunningShelf(["copy", source, folder + "/big.sqlite"])
            try #require(
                await WorkFileWatch.stopOnceAFileAppears(in: folder, prefix: ".big.sqlite.copy-", pid: running.pid))
            let live = try #require(try workFiles().first)
            // Stopped, alive: another copy into the folder and an open of a store in it leave it.
            let other = try await shelf.run(["copy", small, folder + "/other-\(next).sqlite"])
            #expect(other.status == 0, "\(other.error)")
            #expect(!other.error.contains("removed"), "\(other.error)")
            let listed = try await shelf.run(["users", "list", "--db", small])
            #expect(listed.status == 0 && !listed.error.contains("removed"), "\(listed.error)")
            #expect(try workFiles() == [live], "a running copy's work file was removed")

            _ = running.stop(SIGKILL)
            #expect(try workFiles() == [live])
            let after =
                next == "copy"
                ? try await shelf.run(["copy", small, folder + "/third.sqlite"])
                : try await shelf.run(["users", "list", "--db", small])
            #expect(after.status == 0, "\(after.error)")
            #expect(try workFiles() == [], "what the killed copy left is still there (\(next))")
            #expect(
                after.error.contains("shelf: removed \(folder)/\(live) (")
                    && after.error.contains("the unfinished work file of a copy that was stopped (kill -9, a crash)"),
                "\(after.error)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/big.sqlite"))
        }
    }

    /// A NUL in a source whose NUL-refusing trigger another program dropped: the copy quoted
    /// the target's trigger ("an item's title or notes cannot hold…" and the INSERT), naming
    /// neither the row nor the column. Now it says which row and column, as for text that is
    /// not UTF-8, and the UPDATE that removes it, which works.
    @Test func aNULInTheSourceIsNamedWithItsRowColumnAndRemedy() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(
            try await ChildProcess.sqlite3(
                source,
                """
                DROP TRIGGER items_refuse_nul_before_update; DROP TRIGGER users_refuse_nul_before_update;
                UPDATE items SET notes = 'a' || char(0) || 'b' || char(0) WHERE id = 2;
                UPDATE users SET name = 'B' || char(0) || 'ob' WHERE id = 2;
                """) == 0)
        let target = shelf.folder.appendingPathComponent("copy.sqlite").path
        let refused = try await shelf.run(["copy", source, target])
        #expect(refused.status == 1)
        let update =
            "UPDATE users SET name = substr(CAST(name AS BLOB), 1, instr(CAST(name AS BLOB), x'00') - 1) "
            + "|| substr(CAST(name AS BLOB), instr(CAST(name AS BLOB), x'00') + 1) WHERE id = 2"
        #expect(
            refused.error
                == "Error: \(source) holds, in users row 2, column name, the NUL character (U+0000), which a shelf "
                + "store does not keep; remove it in \(source) (sqlite3 \(source) \"\(update)\" removes one; run it "
                + "again while the copy still finds one), then copy again; nothing was copied: \(target) is as it was\n",
            "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try await ChildProcess.sqlite3(source, update) == 0)
        // The item next: two NULs, the UPDATE said run twice.
        let second = try await shelf.run(["copy", source, target])
        #expect(second.status == 1)
        #expect(second.error.contains("holds, in items row 2, column notes, the NUL character"), "\(second.error)")
        let notes = update.replacingOccurrences(of: "users", with: "items").replacingOccurrences(
            of: "name", with: "notes")
        #expect(second.error.contains("\"\(notes)\" removes one"), "\(second.error)")
        #expect(try await ChildProcess.sqlite3(source, notes + "; " + notes) == 0)
        let copied = try await shelf.run(["copy", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        let stored = try await ChildProcess.sqlite3Output(
            target, "SELECT hex(notes) FROM items WHERE id = 2; SELECT name FROM users WHERE id = 2;")
        #expect(stored == "6162\nBob", "\(stored)")
    }
}
