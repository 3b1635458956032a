import Foundation
import ShelfTestSupport
import Testing

@Suite("shelf migrate (end to end)")
struct MigrateCommandTests {
    @Test func migratesTheDatabaseNamedByDb() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let first = try await shelf.run(["migrate", "--db", shelf.databasePath])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("applied 0001_create_users_and_items"))
        let again = try await shelf.run(["migrate", "--db", shelf.databasePath])
        #expect(again.output.contains("up to date"))
        let status = try await shelf.run(["migrate", "--status", "--db", shelf.databasePath])
        #expect(status.status == 0)
        #expect(status.output.contains("0001_create_users_and_items"))
        #expect(status.output.contains("applied"))
    }

    /// Names longer than 36 characters (`0008_view_names_by_visible_characters`) once pushed
    /// their state a column to the right of every other line's.
    @Test func statusLinesLineUpTheirStatesPastTheLongestName() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        #expect(try await shelf.run(["migrate", "--db", shelf.databasePath]).status == 0)
        let status = try await shelf.run(["migrate", "--status", "--db", shelf.databasePath])
        #expect(status.status == 0, "\(status.error)")
        let lines = status.output.split(separator: "\n").filter { !$0.hasPrefix("database: ") }
        #expect(lines.count >= 15, "\(status.output)")
        let longest = lines.map { $0.prefix { $0 != " " }.count }.max() ?? 0
        #expect(longest > 36, "a name longer than the old width of 36 is listed")
        for line in lines {
            let state = line.dropFirst(longest)
            #expect(state.hasPrefix("  applied   "), "state not in column \(longest + 2): \(line)")
        }
    }

    @Test func namesUsersWhoseEmailsDifferOnlyInLetterCaseAndWhatToDo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let path = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", path, "--name", "Ada", "--email", "Äda@x.com"]).status == 0)
        // Added by the sqlite3 shell, which knows nothing of the email key.
        #expect(
            try await ChildProcess.sqlite3(
                path, "INSERT INTO users (name, email, created_at) VALUES ('Other Ada', 'äda@x.com', 0)") == 0)
        let migrate = try await shelf.run(["migrate", "--db", path])
        #expect(migrate.status == 0, "\(migrate.error)")
        #expect(migrate.output.contains("up to date"))
        #expect(
            migrate.output.contains(
                "warning: users 2 (äda@x.com) and 1 (Äda@x.com) have emails that differ only in letter case"),
            "\(migrate.output)")
        // Quoted by the one rule (ShellQuoting): letters, `@` and `.` need no quotes. It names
        // the database given, and `--` keeps an email that starts with '-' an email.
        // (The test's path is plain: letters, digits, '-', '/' and '.'.)
        #expect(migrate.output.contains("shelf users remove --db \(path) -- äda@x.com;"), "\(migrate.output)")
        // Nothing was merged or removed: both are listed.
        let users = try await shelf.run(["users", "list", "--db", path])
        #expect(users.output.contains("Äda@x.com") && users.output.contains("äda@x.com"), "\(users.output)")
        // The advice works as printed: it removes the other user, and only that one.
        let remove = try await shelf.run(["users", "remove", "--db", path, "--", "äda@x.com"])
        #expect(remove.status == 0, "\(remove.error)")
        let left = try await shelf.run(["users", "list", "--db", path]).output
        #expect(left.contains("Äda@x.com") && !left.contains("äda@x.com"), "\(left)")
    }

    /// Two users whose emails collide (one without a key, see `EmailCollision`): an import
    /// finds the one whose email it names exactly, and by its key the one that holds it, as
    /// `users.user(email:)` does, and keeps both.
    @Test func importsFindEachOfTwoCollidingUsersAsLookupsDo() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let path = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", path, "--name", "Ada", "--email", "Äda@x.com"]).status == 0)
        #expect(
            try await ChildProcess.sqlite3(
                path, "INSERT INTO users (name, email, created_at) VALUES ('Other Ada', 'äda@x.com', 0)") == 0)
        let users = shelf.folder.appendingPathComponent("users.csv").path
        try Data("name,email\nOther Ada 2,äda@x.com\nAda 2,ÄDA@x.com\n".utf8).write(to: URL(fileURLWithPath: users))
        let upsert = try await shelf.run(["import", "users", users, "--mode", "upsert", "--db", path])
        #expect(upsert.status == 0 && upsert.error.contains("2 updated"), "\(upsert.error)")
        let items = shelf.folder.appendingPathComponent("items.csv").path
        try Data("user,title\näda@x.com,Other's\nÄDA@X.COM,Ada's\n".utf8).write(to: URL(fileURLWithPath: items))
        let imported = try await shelf.run(["import", "items", items, "--db", path])
        #expect(imported.status == 0, "\(imported.error)")
        let rows = try await shelf.run(["export", "items", "--columns", "title,user", "--db", path])
        #expect(rows.output.contains("Ada's,ÄDA@x.com") && rows.output.contains("Other's,äda@x.com"), "\(rows.output)")
        let list = try await shelf.run(["users", "list", "--db", path])
        #expect(list.output.contains("Ada 2") && list.output.contains("Other Ada 2"), "\(list.output)")
    }

    @Test func statusOfAMissingDatabaseCreatesNothing() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let status = try await shelf.run(["migrate", "--status"], environment: ["SHELF_DB": shelf.databasePath])
        #expect(status.status == 0, "\(status.error)")
        #expect(status.output.contains("pending"))
        #expect(!FileManager.default.fileExists(atPath: shelf.databasePath))
    }

    @Test func findsTheDatabaseThroughTheEnvironment() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        // SHELF_DB wins over XDG_DATA_HOME; --db wins over both.
        let xdg = shelf.folder.appendingPathComponent("xdg").path
        _ = try await shelf.run(["migrate"], environment: ["SHELF_DB": shelf.databasePath, "XDG_DATA_HOME": xdg])
        #expect(FileManager.default.fileExists(atPath: shelf.databasePath))
        #expect(!FileManager.default.fileExists(atPath: xdg))

        _ = try await shelf.run(["migrate"], environment: ["XDG_DATA_HOME": xdg])
        #expect(FileManager.default.fileExists(atPath: xdg + "/shelf/shelf.sqlite"), "the folder is created")

        let result = try await shelf.run(["migrate"])
        #expect(result.status == 0, "\(result.error)")
        let fallback = shelf.folder.appendingPathComponent("home/.local/share/shelf/shelf.sqlite").path
        #expect(FileManager.default.fileExists(atPath: fallback))
    }

    @Test func refusesADatabaseFromANewerShelf() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        _ = try await shelf.run(["migrate", "--db", shelf.databasePath])
        try await ChildProcess.sqlite3(
            shelf.databasePath, "INSERT INTO shelf_migrations VALUES ('9999_future', 'x', 0)")
        let result = try await shelf.run(["migrate", "--db", shelf.databasePath])
        #expect(result.status != 0)
        #expect(result.error.contains("newer version of shelf"))
        #expect(result.error.contains("9999_future"))
        let status = try await shelf.run(["migrate", "--status", "--db", shelf.databasePath])
        #expect(status.output.contains("9999_future"))
    }

    @Test func explainsAFileThatIsNotADatabase() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: shelf.databasePath))
        let result = try await shelf.run(["migrate", "--db", shelf.databasePath])
        #expect(result.status != 0)
        #expect(result.error.contains("not a shelf database") || result.error.contains("not a database"))
    }

    @Test func aCopiedBinaryCarriesItsMigrations() throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        // Alone in a folder of its own, run from elsewhere: no Migrations/ beside it.
        let copy = shelf.folder.appendingPathComponent("bin/shelf")
        try FileManager.default.createDirectory(
            at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ShelfProcess.executable, to: copy)
        let output = shelf.folder.appendingPathComponent("copy.out").path
        var status: Int32 = 0
        // A file just written can briefly refuse to run while a process started meanwhile by
        // another test still holds it open ("Text file busy", which sh reports as 126).
        for _ in 0..<50 {
            status = try ChildProcess(
                "/bin/sh", ["-c", "cd / && exec \"$0\" migrate --db \"$1\"", copy.path, shelf.databasePath],
                environment: ["PATH": "/usr/bin:/bin"], stdout: output
            ).wait()
            guard status == 126 else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 0)
        #expect(text.contains("applied 0001_create_users_and_items"))
        #expect(text.contains("applied 0002_change_counters"))
    }
}
