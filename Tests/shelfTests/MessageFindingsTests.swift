import Foundation
import ShelfTestSupport
import Testing

/// Findings of the third hostile test that are about what the CLI refuses and what it says,
/// end to end through the built binary.
@Suite("Round-three findings: refusals and messages (end to end)")
struct MessageFindingsTests {
    /// `--db` naming a device, a folder or a FIFO: said so, and nothing is made beside it
    /// (SQLite made `/dev/null-journal` and failed with "disk I/O error … is the disk full?").
    @Test func aDatabasePathThatIsNoFileIsRefusedNamingWhatItIs() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let fifo = shelf.folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [("/dev/null", "a device"), (shelf.folder.path, "a folder"), (fifo, "a pipe (FIFO)")] {
            let listed = try await shelf.run(["users", "list", "--db", path])
            #expect(listed.status == 1)
            #expect(listed.error.contains("\(path) is \(kind), not a shelf database"), "\(listed.error)")
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        }
        let copied = try await shelf.run(["copy", shelf.databasePath, "/dev/zero"])
        #expect(copied.status != 0)
        #expect(!FileManager.default.fileExists(atPath: "/dev/zero-journal"))
    }

    /// `a b@e.org` was stored as a user.
    @Test func anEmailWithASpaceInsideIsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let added = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "a b@e.org"])
        #expect(added.status == 1)
        #expect(
            added.error.contains("the email \"a b@e.org\" holds a space at character 2; an email cannot hold spaces"),
            "\(added.error)")
        let nbsp = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@e\u{A0}x.org"])
        #expect(nbsp.status == 1)
        #expect(nbsp.error.contains("at character 6; an email cannot hold spaces"), "\(nbsp.error)")
        // Spaces around it are still trimmed.
        let trimmed = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "  ann@e.org "])
        #expect(trimmed.status == 0, "\(trimmed.error)")
        #expect(try await shelf.run(["users", "list", "--db", db]).output.contains("\tann@e.org\t"))
    }

    /// Hostile round 11: `shelf import users` took `user00000@.example.com`, an email whose
    /// host has an empty part. The one rule (`Email.normalized`) refuses it wherever a user is
    /// written: `users add` and `import users` (and serve's routes, which write through the same
    /// repository).
    @Test func anEmailWhoseHostHasAnEmptyPartIsRefused() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (email, place) in [
            ("ann@.example.com", "a dot at its start"), ("ann@example..com", "two dots together"),
            ("ann@example.com.", "a dot at its end"),
        ] {
            let added = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", email])
            #expect(added.status == 1, "\(email)")
            #expect(
                added.error.contains("the email \"\(email)\" has an empty part in its host"), "\(added.error)")
            #expect(added.error.contains("(\(place))") && added.error.contains("correct the email"), "\(added.error)")
        }
        let imported = try await shelf.run(
            ["import", "users", "-", "--db", db],
            input: "name,email\nUser,user00000@.example.com\nBob,bob@example.com\n")
        #expect(imported.status != 0, "\(imported.output)\(imported.error)")
        #expect(
            imported.error.contains("the email \"user00000@.example.com\" has an empty part in its host"),
            "\(imported.error)")
        let listed = try await shelf.run(["users", "list", "--db", db])
        #expect(!listed.output.contains("user00000"), "\(listed.output)")
        // A right host is still taken.
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@mail.example.com"]).status
                == 0)
    }

    /// Hostile tester: `shelf backup` said nothing when Ctrl-C stopped it.
    @Test func anInterruptedBackupSaysSoAndLeavesNoPartialFile() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        // About 300 MB of another table: the copy takes long enough to be interrupted.
        #expect(
            try await ChildProcess.sqlite3(
                db,
                "CREATE TABLE filler (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                    + "WHERE i < 300) INSERT INTO filler SELECT randomblob(1000000) FROM n") == 0)
        let folder = shelf.folder.appendingPathComponent("backups").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let target = folder + "/copy.sqlite"
        let errors = shelf.folder.appendingPathComponent("backup.err").path
        let backup = try RunningShelf(["backup", "--db", db, target], stderr: errors)
        // Once the copy has begun (its file beside the target), the backup is stopped at once
        // (SIGSTOP), so that on a loaded machine it cannot finish before Ctrl-C arrives; Ctrl-C
        // is then sent and the backup continued.
        let pid = backup.pid
        let begun = try await Self.onThread { () -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if names.contains(where: { $0.hasPrefix(".copy.sqlite.backup-") }) {
                    kill(pid, SIGSTOP)
                    return true
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return false
        }
        try #require(begun, "the backup began writing its copy")
        kill(pid, SIGINT)
        #expect(backup.stop(SIGCONT) == 128 + SIGINT)
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(
            said.contains("Interrupted: \(target) was not written (a file that was there is left as it was)."),
            "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "no partial copy is left")
    }

    /// Runs `body` on a thread of its own and waits for it without holding a task's thread.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
