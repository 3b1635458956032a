#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import ShelfTestSupport
    import Testing

    @Suite(
        "shelf copy and restore with PostgreSQL (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresCopyCommandTests {
        func withDatabase(_ body: (String, ShelfProcess) async throws -> Void) async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { database in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                try await body(database, shelf)
            }
        }

        @Test func sqliteToPostgresAndBackKeepsEveryColumn() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                let deletedID = try await CopyFixture.make(source, shelf: shelf)
                let there = try await shelf.run(["copy", source, url])
                #expect(there.status == 0, "\(there.error)")
                let lines = there.output.split(separator: "\n")
                #expect(lines.count == 3 && lines[0].contains("users 2, items 3, saved_views 1"), "\(there.output)")
                let found = try await shelf.run(["items", "list", "--db", url, "--query", "zurich"])
                #expect(found.output.contains("Zürich notes"), "\(found.output)\(found.error)")
                let viewList = try await shelf.run(["views", "list", "--db", url])
                #expect(viewList.output.contains("Moths"), "\(viewList.output)\(viewList.error)")
                let back = shelf.folder.appendingPathComponent("back.sqlite").path
                let copied = try await shelf.run(["copy", url, back])
                #expect(copied.status == 0, "\(copied.error)")
                #expect(try CopyFixture.dump(back) == CopyFixture.dump(source))
                // The PostgreSQL target's sequences are past every ID the source handed out.
                let added = try await shelf.run([
                    "items", "add", "--db", url, "--user", "bob@example.com", "--title", "New",
                ])
                #expect(added.status == 0, "\(added.error)")
                let listed = try await shelf.run(["items", "list", "--db", url, "--query", "new", "--json"])
                #expect(listed.output.contains("\(deletedID + 1)"), "\(listed.output)")
                // PostgreSQL to PostgreSQL is refused onto itself, and onto a target with rows.
                let same = try await shelf.run(["copy", "--replace", url, url])
                #expect(same.status == 1 && same.error.contains("same database"), "\(same.error)")
                let full = try await shelf.run(["copy", back, url])
                #expect(
                    full.status == 1 && full.error.contains("is not empty: it holds 2 users, 4 items and 1 saved view"),
                    "\(full.error)")
            }
        }

        /// Hostile round 12: with users deleted by psql with the foreign keys set aside, `shelf
        /// export` left their items out and exited 0 ("Exported 2694 items" of 3,006), and
        /// `shelf copy` refused rightly but advised `PRAGMA foreign_key_check`, a SQLite
        /// command. Export now refuses too, leaving no file, and both say the psql query.
        @Test func itemsWhoseUserIsGoneAreRefusedByExportAndCopyInPsqlsWords() async throws {
            try await withDatabase { url, shelf in
                #expect(try await shelf.run(["migrate", "--db", url]).status == 0)
                for (name, email) in [("Ann", "ann@example.com"), ("Bo", "bo@example.com")] {
                    #expect(
                        try await shelf.run(["users", "add", "--db", url, "--name", name, "--email", email]).status == 0
                    )
                    #expect(
                        try await shelf.run(["items", "add", "--db", url, "--user", email, "--title", "of \(name)"])
                            .status
                            == 0)
                }
                let status = try ChildProcess(
                    "/usr/bin/psql",
                    [
                        url, "-v", "ON_ERROR_STOP=1", "-qAtc",
                        "SET session_replication_role = replica; DELETE FROM users WHERE email = 'bo@example.com'",
                    ],
                    environment: ["PATH": "/usr/bin:/bin"], stdout: "/dev/null"
                ).wait()
                try #require(status == 0, "psql deleted the user")
                let file = shelf.folder.appendingPathComponent("items.csv").path
                let exported = try await shelf.run(["export", "items", "--db", url, "-o", file])
                #expect(exported.status == 1, "\(exported.output)\(exported.error)")
                #expect(exported.error.contains("no longer exists"), "\(exported.error)")
                #expect(exported.error.contains("NOT IN (SELECT id FROM users)"), "\(exported.error)")
                #expect(!FileManager.default.fileExists(atPath: file), "a file short of the item was left")
                let target = shelf.folder.appendingPathComponent("copy.sqlite").path
                let copied = try await shelf.run(["copy", url, target])
                #expect(copied.status == 1, "\(copied.output)\(copied.error)")
                #expect(copied.error.contains("NOT IN (SELECT id FROM users)"), "\(copied.error)")
            }
        }

        @Test func replacingIsRefusedWhileAnotherProcessIsConnected() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                #expect(
                    try await shelf.run(["users", "add", "--db", url, "--name", "Cy", "--email", "cy@example.com"])
                        .status == 0)
                let watcher = try RunningShelf(["watch", "items", "--db", url])
                #expect(await watcher.waitForLines(1).count >= 1)
                let refused = try await shelf.run(["copy", "--replace", source, url])
                #expect(refused.status == 1)
                #expect(refused.error.contains("is open in the session"), "\(refused.error)")
                #expect(watcher.interrupt() == 130)
                let replaced = try await shelf.run(["copy", "--replace", source, url])
                #expect(replaced.status == 0, "\(replaced.error)")
                let users = try await shelf.run(["users", "list", "--db", url])
                #expect(!users.output.contains("cy@example.com") && users.output.contains("ann@example.com"))
            }
        }

        @Test func anInterruptedCopyIntoPostgresLeavesItAsItWas() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(100_000)) == 0)
                #expect(
                    try await shelf.run(["users", "add", "--db", url, "--name", "Cy", "--email", "cy@example.com"])
                        .status == 0)
                let stderr = shelf.folder.appendingPathComponent("copy.err").path
                let copy = try RunningShelf(["copy", "--replace", source, url], stderr: stderr)
                // Under way: the copy's transaction has written rows (seen by the server, not by us).
                let server = try #require(PostgresTestServer.url)
                let database = try #require(URLComponents(string: url)?.path.dropFirst())
                #expect(await CopyFixture.waitForInsert(server: server, database: String(database)))
                #expect(copy.interrupt() == 130)
                let error = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
                #expect(error.contains("Interrupted: nothing was copied"), "\(error)")
                let users = try await shelf.run(["users", "list", "--db", url])
                #expect(users.output.contains("cy@example.com") && !users.output.contains("ann@example.com"))
                let items = try await shelf.run(["items", "list", "--db", url])
                #expect(items.output.isEmpty, "\(items.output)")
            }
        }

        @Test func aLostConnectionLeavesTheTargetAsItWas() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                #expect(try await ChildProcess.sqlite3(source, CopyFixture.manyItems(100_000)) == 0)
                let server = try #require(PostgresTestServer.url)
                let database = String(try #require(URLComponents(string: url)?.path.dropFirst()))
                let stderr = shelf.folder.appendingPathComponent("copy.err").path
                let copy = try RunningShelf(["copy", source, url], stderr: stderr)
                #expect(await CopyFixture.waitForInsert(server: server, database: database))
                let terminate = """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = '\(database)' AND query LIKE 'INSERT INTO items%'
                    """
                #expect(try ChildProcess("/usr/bin/psql", [server, "-tAc", terminate], environment: [:]).wait() == 0)
                let status = await copy.waitForExit(timeout: .seconds(180))
                if status == nil { _ = copy.stop(SIGKILL) }
                #expect(status == 1)
                let error = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
                #expect(
                    error.contains("connection")
                        && error.contains("nothing was copied: \(StoreLocation.redacted(url)) is as it was"),
                    "\(error)")
                let users = try await shelf.run(["users", "list", "--db", url])
                #expect(users.status == 0 && users.output.isEmpty, "\(users.output)\(users.error)")
            }
        }

        @Test func postgresToPostgresKeepsEveryColumn() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                #expect(try await shelf.run(["copy", source, url]).status == 0)
                let server = try #require(PostgresTestServer.url)
                try await PostgresScratch.withDatabase(serverURL: server) { other in
                    let copied = try await shelf.run(["copy", url, other])
                    #expect(copied.status == 0, "\(copied.error)")
                    let back = shelf.folder.appendingPathComponent("back.sqlite").path
                    #expect(try await shelf.run(["copy", other, back]).status == 0)
                    #expect(try CopyFixture.dump(back) == CopyFixture.dump(source))
                }
            }
        }

        @Test func restoreReplacesThePostgresContents() async throws {
            try await withDatabase { url, shelf in
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                let backup = shelf.folder.appendingPathComponent("backup.sqlite").path
                #expect(try await shelf.run(["backup", "--db", source, backup]).status == 0)
                #expect(
                    try await shelf.run(["users", "add", "--db", url, "--name", "Cy", "--email", "cy@example.com"])
                        .status == 0)
                let restored = try await shelf.run(["restore", "--db", url, backup])
                #expect(restored.status == 0, "\(restored.error)")
                // It says it restored, not that it copied (hostile tester).
                #expect(restored.output.contains("Restored "), "\(restored.output)")
                #expect(!restored.output.contains("Copied:"), "\(restored.output)")
                let back = shelf.folder.appendingPathComponent("back.sqlite").path
                #expect(try await shelf.run(["copy", url, back]).status == 0)
                #expect(try CopyFixture.dump(back) == CopyFixture.dump(source))
            }
        }
    }

    extension CopyFixture {
        /// Waits (up to 60 s, on a thread of its own) until a session of `database` on
        /// `server` runs or has run an INSERT into items in an open transaction.
        static func waitForInsert(server: String, database: String) async -> Bool {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let deadline = ContinuousClock.now + .seconds(180)
                    let out = NSTemporaryDirectory() + "copy-psql-\(UUID().uuidString)"
                    defer { unlink(out) }
                    let sql = """
                        SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'
                          AND state IN ('active', 'idle in transaction') AND query LIKE 'INSERT INTO items%'
                        """
                    while ContinuousClock.now < deadline {
                        let status = try? ChildProcess(
                            "/usr/bin/psql", [server, "-tAc", sql], environment: [:], stdout: out, stderr: "/dev/null"
                        ).wait()
                        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                        if status == 0, let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), count > 0
                        {
                            return continuation.resume(returning: true)
                        }
                        usleep(20_000)
                    }
                    continuation.resume(returning: false)
                }
            }
        }
    }
#endif
