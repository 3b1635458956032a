#if PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfReactive
    import ShelfStore
    import ShelfTestSupport
    import Testing

    /// Hostile round 14: a `shelf restore` into PostgreSQL killed (`kill -9`) while it wrote
    /// the file that keeps the store's old contents left that hidden work file (and its
    /// `-wal`) beside the backup for good: its name holds the time of its restore, so a later
    /// restore, cleaning up by its own kept file's name, never found it, and said nothing.
    @Suite(
        "restore into PostgreSQL: a killed restore's kept file",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresRestoreLeftoverTests {
        @Test func theNextRestoreRemovesWhatAKilledOneLeftAndSaysSo() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                try #require(
                    try await BlockingWork.run { _ in
                        try ChildProcess.sqlite3(source, CopyFixture.manyItems(60_000))
                    } == 0)
                #expect(try await shelf.run(["copy", source, url]).status == 0)
                let folder = shelf.folder.appendingPathComponent("backups").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let backup = folder + "/small.bak"
                let small = shelf.folder.appendingPathComponent("small.sqlite").path
                #expect(
                    try await shelf.run(["users", "add", "--db", small, "--name", "Cy", "--email", "cy@example.com"])
                        .status == 0)
                #expect(try await shelf.run(["backup", "--db", small, backup]).status == 0)
                let database = String((URLComponents(string: url)?.path ?? "").drop { $0 == "/" })
                let prefix = ".\(database).before-restore-"
                func workFiles() throws -> [String] {
                    try FileManager.default.contentsOfDirectory(atPath: folder).filter {
                        $0.hasPrefix(prefix) && $0.contains(".keep-")
                    }
                }

                let running = try RunningShelf(["restore", "--db", url, backup])
                try #require(await WorkFileWatch.stopOnceAFileAppears(in: folder, prefix: prefix, pid: running.pid))
                _ = running.stop(SIGKILL)
                // The work file itself, without its SQLite companions (a `-journal` while its schema
                // was being made, ci17c; then `-wal` and `-shm`).
                let left = try workFiles().filter { name in
                    !["-wal", "-shm", "-journal"].contains { name.hasSuffix($0) }
                }
                let all = try workFiles()
                try #require(left.count == 1, "\(all)")

                // A second later: the next restore's kept file has another name.
                try await Task.sleep(for: .seconds(1.1))
                let again = try await shelf.run(["restore", "--db", url, backup])
                #expect(again.status == 0, "\(again.error)")
                #expect(try workFiles() == [], "what the killed restore left is still there")
                #expect(
                    again.error.contains("shelf: removed \(folder)/\(left[0]) (")
                        && again.error.contains(
                            "the unfinished work file of a restore that was stopped (kill -9, a crash)"),
                    "\(again.error)")
                // The restore itself went on, and kept what it replaced under its own name.
                #expect(again.output.contains("What it held before is kept in \(folder)/\(database).before-restore-"))
            }
        }

        /// A restore into PostgreSQL checks and reads a copy of the backup in the temporary
        /// folder; killed, it left that copy there for good (tests alone left 758 MB in a day).
        @Test func theNextRestoreRemovesTheBackupCopyAKilledOneLeftInTheTemporaryFolder() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                let source = shelf.databasePath
                try await CopyFixture.make(source, shelf: shelf)
                try #require(
                    try await BlockingWork.run { _ in
                        try ChildProcess.sqlite3(source, CopyFixture.manyItems(60_000))
                    } == 0)
                let backup = shelf.folder.appendingPathComponent("big.bak").path
                #expect(try await shelf.run(["backup", "--db", source, backup]).status == 0)
                let temporary = shelf.folder.appendingPathComponent("tmp").path
                try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
                let prefix = "shelf-restore-"
                func copies() throws -> [String] {
                    try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix(prefix) }
                }

                let running = try RunningShelf(["restore", "--db", url, backup], environment: ["TMPDIR": temporary])
                try #require(await WorkFileWatch.stopOnceAFileAppears(in: temporary, prefix: prefix, pid: running.pid))
                _ = running.stop(SIGKILL)
                try #require(try copies().isEmpty == false)

                let again = try await shelf.run(["restore", "--db", url, backup], environment: ["TMPDIR": temporary])
                #expect(again.status == 0, "\(again.error)")
                #expect(try copies() == [], "the killed restore's copy of the backup is still there")
            }
        }
    }
#endif
