#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import ShelfTestSupport
    import Testing

    /// `shelf copy` into a PostgreSQL database that another session writes at the same time:
    /// two copies racing into one empty database, and a copy that waits for a lock.
    @Suite(
        "shelf copy into PostgreSQL that others write (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresCopyContentionTests {
        /// The first column of `sql`'s rows, through psql.
        private static func psql(_ url: String, _ sql: String, in shelf: ShelfProcess) throws -> [String] {
            let output = shelf.folder.appendingPathComponent("psql-\(UUID().uuidString).out").path
            defer { unlink(output) }
            let status = try ChildProcess(
                "/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], environment: ["PATH": "/usr/bin:/bin"],
                stdout: output
            ).wait()
            #expect(status == 0, "psql: \(sql)")
            return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(
                String.init)
        }

        /// A psql session that runs `sql` and then keeps its transaction open until `end()`.
        private final class Holder {
            let process: ChildProcess
            private var input: Int32

            init(_ url: String, _ sql: String) throws {
                var ends: [Int32] = [0, 0]
                #expect(pipe(&ends) == 0)
                process = try ChildProcess(
                    "/usr/bin/psql", [url, "-qAt"], environment: ["PATH": "/usr/bin:/bin", "PGAPPNAME": "lock-holder"],
                    input: .descriptor(ends[0]), output: .file("/dev/null"))
                close(ends[0])
                input = ends[1]
                _ = sql.withCString { write(input, $0, strlen($0)) }
            }

            /// Closes psql's stdin (its transaction rolls back) and waits for it.
            func end() {
                guard input >= 0 else { return }
                close(input)
                input = -1
                process.wait()
            }
        }

        /// Polls (up to 20 s) until the holder's session holds `mode` on `table`; its PID.
        private static func holderPID(
            of url: String, mode: String, on table: String, in shelf: ShelfProcess
        ) async throws -> String {
            var pid = ""
            let deadline = ContinuousClock.now + .seconds(20)
            while pid.isEmpty, ContinuousClock.now < deadline {
                pid =
                    try psql(
                        url,
                        "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.granted "
                            + "AND l.mode = '\(mode)' AND l.relation = '\(table)'::regclass "
                            + "AND a.application_name = 'lock-holder'", in: shelf
                    ).first ?? ""
                if pid.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            return pid
        }

        /// Polls (up to 60 s) until `count` sessions of `database` wait for a lock.
        private static func waitForLockWaits(
            _ count: Int, server: String, database: String, in shelf: ShelfProcess
        ) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let waiting = try psql(
                    server,
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock'",
                    in: shelf)
                if let first = waiting.first, let found = Int(first), found >= count { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        /// Finding F6: two copies into one empty database at once. The one that comes second
        /// used to fail on the first's keys ("duplicate key value violates unique constraint")
        /// and claim the target "is as it was". Now it waits for the first, then says another
        /// session wrote the target meanwhile and nothing of its own was written; the target
        /// holds exactly the first copy.
        @Test func twoCopiesIntoOneEmptyDatabaseLeaveOneAndSaySo() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                let database = try PostgresLocation(url: url).database
                let first = shelf.databasePath
                try await CopyFixture.make(first, shelf: shelf)
                let second = shelf.folder.appendingPathComponent("second.sqlite").path
                try await CopyFixture.make(second, shelf: shelf)
                #expect(try await ChildProcess.sqlite3(second, CopyFixture.manyItems(2_000)) == 0)
                #expect(try await shelf.run(["migrate", "--db", url]).status == 0)
                // Both copies start while a third session writes the target, so that both are
                // inside their transactions when it ends: they then race for the tables.
                let holder = try Holder(url, "BEGIN; LOCK TABLE users IN ROW EXCLUSIVE MODE; SELECT 1;\n")
                defer { holder.end() }
                let held = try await Self.holderPID(of: url, mode: "RowExclusiveLock", on: "users", in: shelf)
                try #require(!held.isEmpty, "psql took the lock")
                var copies: [(process: ChildProcess, stderr: String, source: String)] = []
                for (index, source) in [first, second].enumerated() {
                    let stderr = shelf.folder.appendingPathComponent("copy-\(index).err").path
                    let process = try ChildProcess(
                        ShelfProcess.executable.path, ["copy", source, url],
                        environment: ["PATH": "/usr/bin:/bin", "HOME": shelf.folder.path], stderr: stderr)
                    copies.append((process, stderr, source))
                }
                #expect(try await Self.waitForLockWaits(2, server: server, database: database, in: shelf))
                holder.end()
                let statuses = copies.map { $0.process.wait() }
                #expect(statuses.sorted() == [0, 1], "one copy goes through, the other stops: \(statuses)")
                guard let winner = statuses.firstIndex(of: 0), let loser = statuses.firstIndex(of: 1) else { return }
                let error = (try? String(contentsOfFile: copies[loser].stderr, encoding: .utf8)) ?? ""
                #expect(!error.contains("duplicate key"), "\(error)")
                #expect(!error.contains("is as it was"), "the target is not as it was: \(error)")
                #expect(
                    error.contains("was written by another session while this copy waited for its lock")
                        && error.contains("nothing of this copy was written") && error.contains("--replace"),
                    "\(error)")
                #expect(error.split(separator: "\n").count == 1, "one line: \(error)")
                // The target holds the winner's rows, whole.
                let back = shelf.folder.appendingPathComponent("back.sqlite").path
                #expect(try await shelf.run(["copy", url, back]).status == 0)
                #expect(try CopyFixture.dump(back) == CopyFixture.dump(copies[winner].source))
            }
        }

        /// Finding F7: a copy that waits for a lock past the write timeout names the session
        /// holding it, as every other write does (it said only "the database is busy with
        /// another transaction"), and says once that nothing was copied.
        @Test func aCopyThatWaitsForALockNamesTheHolder() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                #expect(try await shelf.run(["migrate", "--db", url]).status == 0)
                let holder = try Holder(url, "BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE; SELECT 1;\n")
                defer { holder.end() }
                let holderPID = try await Self.holderPID(of: url, mode: "AccessExclusiveLock", on: "items", in: shelf)
                try #require(!holderPID.isEmpty, "psql took the lock")
                let stderr = shelf.folder.appendingPathComponent("copy.err").path
                let copy = try ChildProcess(
                    ShelfProcess.executable.path, ["copy", source, url],
                    environment: [
                        "PATH": "/usr/bin:/bin", "HOME": shelf.folder.path, "SHELF_WRITE_TIMEOUT_MS": "3000",
                    ],
                    stderr: stderr)
                #expect(copy.wait(limit: .seconds(60)) == 1)
                let error = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
                #expect(error.contains("'lock-holder' (PID \(holderPID), user "), "\(error)")
                #expect(error.contains("longer than 3 s"), "\(error)")
                #expect(error.contains("pg_terminate_backend(pid)"), "\(error)")
                let shown = StoreLocation.redacted(url)
                #expect(error.contains("nothing was copied: \(shown) is as it was"), "\(error)")
                #expect(error.components(separatedBy: "nothing was").count == 2, "said once: \(error)")
                #expect(error.split(separator: "\n").count == 1, "one line: \(error)")
                holder.end()
                #expect(try Self.psql(url, "SELECT count(*) FROM users", in: shelf) == ["0"])
            }
        }
    }
#endif
