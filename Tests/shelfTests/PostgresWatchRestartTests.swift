#if PostgreSQL
    import Foundation
    import ShelfTestSupport
    import Testing

    /// `shelf watch` while the PostgreSQL server restarts (a cluster of the test's own, restarted
    /// as an operator does): watch keeps running, says nothing it had not said, and prints the
    /// commits made after the restart (issue 23: the restart was tested in the library only).
    @Suite(
        "shelf watch across a PostgreSQL restart (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil && ThrowawayCluster.binFolder != nil,
            "set SHELF_TEST_POSTGRES, with PostgreSQL's programs installed, to run it"))
    struct PostgresWatchRestartTests {
        @Test func watchGoesOnAcrossAServerRestart() async throws {
            let cluster = try await Self.onThread { try ThrowawayCluster() }
            defer { cluster.remove() }
            let shelf = try ShelfProcess()
            defer { shelf.cleanUp() }
            let url = cluster.url
            let added = try await shelf.run([
                "users", "add", "--db", url, "--name", "Ann", "--email", "ann@example.com",
            ])
            try #require(added.status == 0, "\(added.error)")
            let log = shelf.folder.appendingPathComponent("watch.err").path
            let watch = try RunningShelf(["watch", "items", "--db", url, "--limit", "5"], stderr: log)
            try #require(await watch.waitForLines(1, timeout: .seconds(180)).count == 1, "no first line from watch")
            let before = try await shelf.run(
                ["items", "add", "--db", url, "--user", "ann@example.com", "--title", "Before the restart"])
            #expect(before.status == 0, "\(before.error)")
            try #require(await watch.waitForLines(2, timeout: .seconds(180)).count == 2)

            try await Self.onThread { try cluster.restart() }
            let after = try await shelf.run(
                ["items", "add", "--db", url, "--user", "ann@example.com", "--title", "After the restart"])
            #expect(after.status == 0, "\(after.error)")

            // Lines that show a failure while the server was away may come between; the last
            // one shows both items, and watch is still running.
            let deadline = ContinuousClock.now + .seconds(90)
            var lines: [String] = []
            while ContinuousClock.now < deadline {
                lines = await watch.waitForLines(lines.count + 1, timeout: .seconds(5))
                if let last = lines.last, last.contains("After the restart"), last.contains("Before the restart") {
                    break
                }
            }
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(lines.last?.contains("After the restart") == true, "watch printed: \(lines)\nstderr: \(said)")
            #expect(lines.last?.contains("Before the restart") == true, "\(lines)")
            #expect(await watch.waitForExit(timeout: .seconds(1)) == nil, "watch ended: \(said)")
        }

        /// A database whose encoding is not UTF8: refused at the first command, saying what to
        /// do, with nothing written (found here: users could be added, then every item write
        /// failed with "Unicode normalization can only be performed if server encoding is UTF8").
        @Test func aDatabaseNotInUTF8IsRefusedSayingHowToMakeOne() async throws {
            let cluster = try await Self.onThread { try ThrowawayCluster(encoding: "SQL_ASCII") }
            defer { cluster.remove() }
            let shelf = try ShelfProcess()
            defer { shelf.cleanUp() }
            let refused = try await shelf.run(
                ["users", "add", "--db", cluster.url, "--name", "Ann", "--email", "ann@example.com"])
            #expect(refused.status != 0)
            #expect(refused.error.contains("uses the encoding SQL_ASCII, and shelf needs UTF8"), "\(refused.error)")
            #expect(refused.error.contains("createdb --encoding=UTF8 --template=template0"), "\(refused.error)")
            // --status says the same, rather than list every migration as pending (hostile tester).
            let status = try await shelf.run(["migrate", "--status", "--db", cluster.url])
            #expect(status.status != 0)
            #expect(status.error.contains("uses the encoding SQL_ASCII, and shelf needs UTF8"), "\(status.error)")
            #expect(!status.output.contains("applied"), "nothing was migrated: \(status.output)")
        }

        /// Runs `body` on a plain thread (it blocks: initdb, pg_ctl) and waits.
        private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
            }
        }
    }
#endif
