#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// A write on PostgreSQL that waits for a lock another session holds gives up after the
    /// write timeout, as on SQLite, and names the session holding it.
    @Suite(
        "shelf on PostgreSQL: lock waits (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresLockCommandTests {
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

        @Test func anAddThatWaitsForATableLockEndsAndNamesTheHolder() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                let database = try PostgresLocation(url: url).database
                #expect(
                    try await shelf.run(["users", "add", "--db", url, "--name", "Ann", "--email", "ann@example.com"])
                        .status == 0)
                // psql holds the lock in an open transaction for as long as its stdin stays open.
                var pipeEnds: [Int32] = [0, 0]
                #expect(pipe(&pipeEnds) == 0)
                let holder = try ChildProcess(
                    "/usr/bin/psql", [url, "-qAt"], environment: ["PATH": "/usr/bin:/bin", "PGAPPNAME": "lock-holder"],
                    input: .descriptor(pipeEnds[0]), output: .file("/dev/null"))
                close(pipeEnds[0])
                let lock = "BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE; SELECT 1;\n"
                _ = lock.withCString { write(pipeEnds[1], $0, strlen($0)) }
                defer {
                    close(pipeEnds[1])
                    holder.wait()
                }
                var holderPID = ""
                let lockDeadline = ContinuousClock.now + .seconds(20)
                while holderPID.isEmpty, ContinuousClock.now < lockDeadline {
                    holderPID =
                        try Self.psql(
                            url,
                            "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.granted "
                                + "AND l.mode = 'AccessExclusiveLock' AND l.relation = 'items'::regclass "
                                + "AND a.application_name = 'lock-holder'", in: shelf
                        ).first ?? ""
                    if holderPID.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
                }
                try #require(!holderPID.isEmpty, "psql took the lock")

                // The add waits, visible to others as the session 'shelf' waiting for a lock.
                let errorFile = shelf.folder.appendingPathComponent("add.err").path
                let start = ContinuousClock.now
                let add = try ChildProcess(
                    ShelfProcess.executable.path,
                    ["items", "add", "--db", url, "--user", "ann@example.com", "--title", "Blocked"],
                    environment: [
                        "PATH": "/usr/bin:/bin", "HOME": shelf.folder.path, "SHELF_WRITE_TIMEOUT_MS": "3000",
                    ],
                    stderr: errorFile)
                var waiting: [String] = []
                while waiting.isEmpty, add.isRunning {
                    waiting = try Self.psql(
                        url,
                        "SELECT application_name FROM pg_stat_activity WHERE datname = '\(database)' "
                            + "AND wait_event_type = 'Lock'", in: shelf)
                }
                #expect(waiting == ["shelf"], "the waiting session is named shelf")
                let finish = ContinuousClock.now + .seconds(120)
                while add.isRunning, ContinuousClock.now < finish { try await Task.sleep(for: .milliseconds(20)) }
                #expect(!add.isRunning, "the add still waits after 30 s")
                #expect(add.wait() == 1)
                let elapsed = ContinuousClock.now - start
                #expect(elapsed >= .seconds(3) && elapsed < .seconds(20), "\(elapsed)")
                let error = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
                #expect(error.contains("'lock-holder' (PID \(holderPID), user "), "\(error)")
                #expect(error.contains("from 127.0.0.1"), "\(error)")
                #expect(error.contains("longer than 3 s"), "\(error)")
                #expect(error.contains("pg_terminate_backend(pid)") && error.contains("(\(holderPID))"), "\(error)")
                #expect(error.split(separator: "\n").count == 1, "one line: \(error)")
                // It says what waited: a write here (it said "this change" for reads too).
                #expect(error.contains("that this write waited for longer than 3 s; nothing was written"), "\(error)")
                let listError = shelf.folder.appendingPathComponent("list.err").path
                let list = try ChildProcess(
                    ShelfProcess.executable.path, ["items", "list", "--db", url],
                    environment: [
                        "PATH": "/usr/bin:/bin", "HOME": shelf.folder.path, "SHELF_WRITE_TIMEOUT_MS": "3000",
                    ],
                    stdout: "/dev/null", stderr: listError)
                let listFinish = ContinuousClock.now + .seconds(120)
                while list.isRunning, ContinuousClock.now < listFinish { try await Task.sleep(for: .milliseconds(20)) }
                #expect(list.wait() == 1)
                let listed = (try? String(contentsOfFile: listError, encoding: .utf8)) ?? ""
                #expect(listed.contains("that this read waited for longer than 3 s; nothing was read"), "\(listed)")

                // Once the holder ends, the same add goes through; the failed one wrote nothing.
                close(pipeEnds[1])
                holder.wait()
                pipeEnds[1] = -1
                let retry = try await shelf.run([
                    "items", "add", "--db", url, "--user", "ann@example.com", "--title", "After",
                ])
                #expect(retry.status == 0, "\(retry.error)")
                #expect(try Self.psql(url, "SELECT title FROM items ORDER BY id", in: shelf) == ["After"])
            }
        }
    }
#endif
