#if Server && PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// `GET /api/changes` and live-window positions on PostgreSQL, through the real binary on a
    /// real server: the same JSON and the same resume as on SQLite, although PostgreSQL commits
    /// its log positions out of order.
    @Suite(.serialized) struct PostgresChangeStreamTests {
        static var postgres: String? { InstancesTests.postgres }

        /// `psql URL -c SQL` (on a thread of its own): its exit status and output (unaligned,
        /// tuples only).
        static func psql(_ url: String, _ sql: String) async throws -> (status: Int32, output: String) {
            let output = "/tmp/shelf-psql-\(UUID().uuidString).out"
            defer { unlink(output) }
            let status = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            try ChildProcess(
                                "/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql],
                                environment: ["PATH": "/usr/bin:/bin"], stdout: output
                            ).wait()
                        })
                }
            }
            return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        }

        /// A server on a fresh PostgreSQL database with one user (ann@example.com).
        static func withServed(
            prepare: @escaping (ServedShelfCLI) throws -> Void = { _ in },
            _ body: (ServedShelf, String) async throws -> Void
        ) async throws {
            let server = try #require(postgres)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                try await ServedShelf.with(location: url, prepare: prepare) { served in try await body(served, url) }
            }
        }

        /// The log's highest seq now.
        static func head(_ url: String) async throws -> Int64 {
            let result = try await psql(url, "SELECT coalesce(max(seq), 0) FROM shelf_change_log")
            return try #require(Int64(result.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        static func summary(_ events: [ServerSentEvent]) -> [String] {
            events.map {
                "\($0.json["table"] ?? "") \($0.json["op"] ?? "") \(($0.json["row"] as? [String: Any])?["title"] ?? "-")"
            }
        }

        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func changesFromTheCommandLineAndPsqlArriveInOrder() async throws {
            try await Self.withServed { served, url in
                let stream = try await EventStream(served, "/api/changes?after=0")
                #expect(stream.status == 200)
                #expect(stream.contentType == "text/event-stream")
                let added = try await served.shelf.runAsync([
                    "items", "add", "--user", "ann@example.com", "--title", "Catch the moth",
                ])
                #expect(added.status == 0, "\(added.error)")
                for sql in [
                    "INSERT INTO items (id, user_id, title, created_at, updated_at) VALUES (50, 1, 'Moth trap', 1, 1)",
                    "UPDATE items SET title = 'Caught the moth', version = version + 1 WHERE id = 1",
                    "DELETE FROM items WHERE id = 50",
                ] {
                    #expect(try await Self.psql(url, sql).status == 0, "\(sql)")
                }
                let last = try await Self.head(url)
                let events = try await ChangeStreamTests.changes(stream, through: last)
                #expect(events.allSatisfy { $0.event == "change" })
                let seqs = events.compactMap(\.seq)
                #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "ids only increase: \(seqs)")
                #expect(events.map(\.id) == seqs.map { String($0) })
                // Each row as it is when its change is sent: the update's after the update.
                let changes = events.map { "\($0.json["table"] ?? "") \($0.json["id"] ?? "") \($0.json["op"] ?? "")" }
                #expect(
                    changes == [
                        "users 1 insert", "items 1 insert", "items 50 insert", "items 1 update", "items 50 delete",
                    ])
                #expect((events[0].json["row"] as? [String: Any])?["email"] as? String == "ann@example.com")
                #expect((events[3].json["row"] as? [String: Any])?["title"] as? String == "Caught the moth")
                #expect(events[4].json["row"] is NSNull, "a deleted row is null")
                let metrics = try await served.get("/metrics")
                #expect(metrics.body.contains("shelf_change_streams 1"), "\(metrics.body)")
            }
        }

        /// Two transactions commit out of seq order: the one holding the lower seq commits last.
        /// The stream sends it, then the higher one: it neither skips the late one nor sends the
        /// ids out of order, and a stream resumed between them gets exactly what follows.
        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aChangeCommittedLateWithALowerSeqIsNotSkipped() async throws {
            try await Self.withServed { served, url in
                let stream = try await EventStream(served, "/api/changes")
                let start = try await Self.head(url)
                // The slow transaction takes its seq, then sleeps before committing.
                let slow = Task {
                    try await Self.psql(
                        url,
                        "BEGIN; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'late', 1, 1); "
                            + "SELECT pg_sleep(3); COMMIT;")
                }
                let holding = await ServedShelf.poll {
                    // Blocking on the poll's own thread.
                    let check = try? ChildProcessRunner.psqlSync(
                        url,
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()"
                    )
                    return check == "1" ? true : nil
                }
                try #require(holding == true, "the slow transaction never reached its sleep")
                #expect(
                    try await Self.psql(
                        url, "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'early', 1, 1)"
                    ).status == 0)
                // The early commit is visible while the late one is not: a reader that kept only
                // the highest seq would now pass the late one by.
                let visible = try await Self.psql(url, "SELECT string_agg(title, ',' ORDER BY id) FROM items")
                #expect(visible.output.trimmingCharacters(in: .whitespacesAndNewlines) == "early")
                #expect(try await slow.value.status == 0)
                let last = try await Self.head(url)
                let events = try await ChangeStreamTests.changes(stream, through: last)
                #expect(Self.summary(events) == ["items insert late", "items insert early"])
                let seqs = events.compactMap(\.seq)
                #expect(seqs.count == 2 && seqs[0] > start && seqs[0] < seqs[1], "\(seqs)")
                // Resumed by the URL's position and by Last-Event-ID: exactly what follows.
                let fromFirst = try await EventStream(served, "/api/changes?after=\(seqs[0])")
                #expect(
                    Self.summary(try await ChangeStreamTests.changes(fromFirst, through: last)) == [
                        "items insert early"
                    ])
                let resumed = try await EventStream(
                    served, "/api/changes?after=0", headers: [("Last-Event-ID", String(seqs[0]))])
                #expect(try await ChangeStreamTests.changes(resumed, through: last).compactMap(\.seq) == [seqs[1]])
                let fromStart = try await EventStream(served, "/api/changes?after=\(start)")
                #expect(try await ChangeStreamTests.changes(fromStart, through: last).compactMap(\.seq) == seqs)
            }
        }

        /// A rolled-back transaction leaves a gap in the seqs that never fills: the stream passes
        /// it (no wake-up announces a rollback) and goes on.
        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aRolledBackSeqHoldsNothingBackForLong() async throws {
            try await Self.withServed { served, url in
                let stream = try await EventStream(served, "/api/changes")
                let rolledBack = Task {
                    try await Self.psql(
                        url,
                        "BEGIN; INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'never', 1, 1); "
                            + "SELECT pg_sleep(2); ROLLBACK;")
                }
                let holding = await ServedShelf.poll {
                    let check = try? ChildProcessRunner.psqlSync(
                        url,
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()"
                    )
                    return check == "1" ? true : nil
                }
                try #require(holding == true)
                #expect(
                    try await Self.psql(
                        url, "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'kept', 1, 1)"
                    ).status == 0)
                #expect(try await rolledBack.value.status == 0)
                let events = try await ChangeStreamTests.changes(stream, through: try await Self.head(url))
                #expect(Self.summary(events) == ["items insert kept"])
            }
        }

        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aPositionThePruningPassedGetsAReset() async throws {
            try await Self.withServed { served, url in
                let following = try await EventStream(served, "/api/changes?after=0")
                #expect(try await following.next()?.json["table"] as? String == "users")
                // 103,000 rows in one statement: the log prunes what lies 100,000 changes back.
                let bulk = try await Self.psql(
                    url,
                    "INSERT INTO items (user_id, title, created_at, updated_at) "
                        + "SELECT 1, 'bulk ' || i, 1, 1 FROM generate_series(1, 103000) i")
                #expect(bulk.status == 0)
                let head = try await Self.head(url)
                let horizon = try await Self.psql(url, "SELECT pruned_through FROM shelf_change_log_horizon")
                let prunedThrough = try #require(Int64(horizon.output.trimmingCharacters(in: .whitespacesAndNewlines)))
                #expect(prunedThrough > 1)
                // The stream that was following reads on (256 at a time) from where the pruning
                // did not reach, or resets; one asked from a pruned position resets at once.
                let late = try await EventStream(served, "/api/changes?after=1")
                let reset = try #require(try await late.next())
                #expect(reset.event == "reset")
                #expect((reset.json["detail"] as? String)?.contains("read the items and users again") == true)
                #expect((reset.json["head"] as? NSNumber)?.int64Value == head)
                #expect(try await late.next() == nil, "the stream ends after a reset")
                let kept = try await EventStream(served, "/api/changes?after=\(head - 5)")
                #expect(
                    try await ChangeStreamTests.changes(kept, through: head).compactMap(\.seq)
                        == Array((head - 4)...head))
            }
        }

        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aBadPositionIsAClear400() async throws {
            try await Self.withServed { served, url in
                let head = try await Self.head(url)
                let cases: [(String, [(String, String)], String)] = [
                    ("/api/changes?after=-1", [], "'-1' is not a change-log position"),
                    ("/api/changes?after=moth", [], "'moth' is not a change-log position"),
                    ("/api/changes?after=\(head + 1)", [], "\(head + 1) lies past the change log's head (\(head))"),
                    ("/api/changes", [("Last-Event-ID", "x1")], "Last-Event-ID 'x1' is not a change-log position"),
                ]
                for (path, headers, detail) in cases {
                    let reply = try await served.get(path, headers: headers)
                    #expect(reply.status == 400, "\(path)")
                    #expect(reply["Content-Type"] == "application/problem+json", "\(path)")
                    #expect(reply.detail.contains(detail), "\(path): \(reply.detail)")
                }
            }
        }

        /// Live windows carry `id:` and `seq` on PostgreSQL too; a client resuming with
        /// `Last-Event-ID` gets nothing it has, and its next window is current with a larger id.
        @Test(.enabled(if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func liveWindowsCarryPositionsAndResume() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                for title in ["one", "two", "three"] {
                    _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", title])
                }
            }
            try await Self.withServed(prepare: prepare) { served, url in
                let first = try await EventStream(served, "/api/items/live?limit=5")
                let current = try #require(try await first.next())
                #expect(current.event == "window")
                let position = try #require(current.id.flatMap { Int64($0) }, "an event id")
                #expect(current.seq == position)
                #expect(position == (try await Self.head(url)))

                // Resuming at the current position: nothing until the window changes.
                let resumed = try await EventStream(
                    served, "/api/items/live?limit=5", headers: [("Last-Event-ID", String(position))])
                #expect(
                    try await Self.psql(
                        url, "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'four', 1, 1)"
                    ).status == 0)
                let next = try #require(try await resumed.next())
                let later = try #require(next.id.flatMap { Int64($0) })
                #expect(later > position, "the first event after resuming is the change, not the window again")
                #expect(next.json["count"] as? Int == 4)
                #expect(try await first.next()?.id == String(later))

                // Resuming behind: the current window at once; from no position: the same.
                let behind = try await EventStream(
                    served, "/api/items/live?limit=5", headers: [("Last-Event-ID", String(position))])
                #expect(try await behind.next()?.id == String(later))
                let garbage = try await EventStream(
                    served, "/api/items/live?limit=5", headers: [("Last-Event-ID", "later")])
                #expect(try await garbage.next()?.id == String(later))
            }
        }
    }
#endif

#if Server && PostgreSQL
    extension ChildProcessRunner {
        /// `psql URL -qAtc SQL`'s output, trimmed; blocks (call it from a thread, not a task).
        static func psqlSync(_ url: String, _ sql: String) throws -> String {
            let output = "/tmp/shelf-psql-\(UUID().uuidString).out"
            defer { unlink(output) }
            _ = try ChildProcess(
                "/usr/bin/psql", [url, "-qAtc", sql], environment: ["PATH": "/usr/bin:/bin"], stdout: output
            ).wait()
            return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
#endif
