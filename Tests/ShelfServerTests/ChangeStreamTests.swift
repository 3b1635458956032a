#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// `GET /api/changes`: the change log's row changes, in order, resumable from any position
    /// the log still holds.
    @Suite(.serialized) struct ChangeStreamTests {
        /// The changes of a stream until one has `seq` at least `last`; the stream must not end first.
        static func changes(_ stream: EventStream, through last: Int64) async throws -> [ServerSentEvent] {
            var events: [ServerSentEvent] = []
            while let event = try await stream.next() {
                events.append(event)
                if let seq = event.seq, seq >= last { return events }
            }
            Issue.record("the stream ended before change \(last); it sent \(events.map(\.data))")
            return events
        }

        /// 12,000 items in one transaction from the sqlite3 shell: the log prunes what lies more
        /// than 10,000 changes back, so the changes before the insert are gone.
        static func pruneTheLog(_ served: ServedShelf) async throws {
            let status = try await served.cli(
                sqlite: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
                    INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                    SELECT 1, 'bulk ' || i, 'open', 1, 1700000000000, 1700000000000 FROM n
                    """)
            #expect(status == 0)
        }

        @Test func changesFromTheCommandLineAndTheSQLiteShellArriveInOrder() async throws {
            try await ServedShelf.with { served in
                let stream = try await EventStream(served, "/api/changes?after=0")
                #expect(stream.status == 200)
                #expect(stream.contentType == "text/event-stream")
                let added = try await served.shelf.runAsync([
                    "items", "add", "--user", "ann@example.com", "--title", "Catch the moth",
                ])
                #expect(added.status == 0)
                let sql = [
                    """
                    INSERT INTO items (id, user_id, title, status, priority, created_at, updated_at)
                    VALUES (50, 1, 'Moth trap', 'open', 1, 1700000000000, 1700000000000)
                    """,
                    "UPDATE items SET title = 'Caught the moth', version = version + 1 WHERE id = 1",
                    "DELETE FROM items WHERE id = 50",
                ]
                for statement in sql { #expect(try await served.cli(sqlite: statement) == 0) }
                let events = try await Self.changes(stream, through: 5)
                #expect(events.allSatisfy { $0.event == "change" })
                // Every event's id is its position, one after the one before: none missing.
                #expect(events.map(\.seq) == [1, 2, 3, 4, 5])
                #expect(events.map(\.id) == ["1", "2", "3", "4", "5"])
                let summary = events.map { "\($0.json["table"] ?? "") \($0.json["id"] ?? "") \($0.json["op"] ?? "")" }
                #expect(
                    summary == [
                        "users 1 insert", "items 1 insert", "items 50 insert", "items 1 update", "items 50 delete",
                    ])
                let user = try #require(events[0].json["row"] as? [String: Any])
                #expect(user["email"] as? String == "ann@example.com")
                // The row as it is now: the item's title after the update, its owner by email.
                let updated = try #require(events[3].json["row"] as? [String: Any])
                #expect(updated["title"] as? String == "Caught the moth")
                #expect(updated["user"] as? String == "ann@example.com")
                #expect(events[4].json["row"] is NSNull, "a deleted row is null")
                let metrics = try await served.get("/metrics")
                #expect(metrics.body.contains("shelf_change_streams 1"), "\(metrics.body)")
            }
        }

        /// An UPDATE from the sqlite3 shell, which does not move `version`, was two changes: the
        /// shell's, and the version trigger's own UPDATE logged again. Now one; live windows still
        /// show each row as a fresh read does, its version moved.
        @Test func aSQLiteShellUpdateIsOneChangeAndLiveWindowsStayExact() async throws {
            try await ServedShelf.with { served in
                for title in ["Catch the moth", "Feed the cat"] {
                    let added = try await served.shelf.runAsync([
                        "items", "add", "--user", "ann@example.com", "--title", title,
                    ])
                    #expect(added.status == 0)
                }
                let stream = try await EventStream(served, "/api/changes?after=0")
                _ = try await Self.changes(stream, through: 3)
                let live = try await EventStream(served, "/api/items/live")
                #expect(try await live.next()?.event == "window")
                #expect(try await served.cli(sqlite: "UPDATE items SET title = 'Caught the moth' WHERE id = 1") == 0)
                #expect(try await served.cli(sqlite: "UPDATE items SET status = 'done' WHERE id = 2") == 0)
                let events = try await Self.changes(stream, through: 5)
                let summary = events.map { "\($0.seq ?? 0) \($0.json["id"] ?? "") \($0.json["op"] ?? "")" }
                #expect(summary == ["4 1 update", "5 2 update"], "one change per UPDATE")
                let window = try await live.next {
                    let items = $0.json["items"] as? [[String: Any]] ?? []
                    return items.contains { $0["id"] as? Int == 2 && $0["status"] as? String == "done" }
                }
                #expect(window?.id == "5", "the window is at the second UPDATE's position")
                let fresh = try await served.get("/api/items")
                let shown: ([[String: Any]]) -> [String] = { items in
                    items.map { "\($0["id"] ?? "") \($0["title"] ?? "") \($0["status"] ?? "") \($0["version"] ?? "")" }
                }
                let windowItems = shown(window?.json["items"] as? [[String: Any]] ?? [])
                #expect(windowItems == shown(fresh.json["items"] as? [[String: Any]] ?? []))
                #expect(Set(windowItems) == ["1 Caught the moth open 2", "2 Feed the cat done 2"])
            }
        }

        @Test func resumingGivesExactlyTheChangesAfterThePosition() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                for title in ["one", "two", "three", "four", "five"] {
                    _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", title])
                }
            }
            try await ServedShelf.with(prepare: prepare) { served in
                // The log holds the user (1) and the five items (2 to 6).
                let all = try await Self.changes(EventStream(served, "/api/changes?after=0"), through: 6)
                #expect(all.map(\.seq) == [1, 2, 3, 4, 5, 6])

                let fromThree = try await EventStream(served, "/api/changes?after=3")
                // An EventSource reconnects to the same URL with the id it read last: that wins.
                let resumed = try await EventStream(
                    served, "/api/changes?after=0", headers: [("Last-Event-ID", "5")])
                let fromHead = try await EventStream(served, "/api/changes")
                _ = try await served.shelf.runAsync(["items", "add", "--user", "ann@example.com", "--title", "six"])
                #expect(try await Self.changes(fromThree, through: 7).map(\.seq) == [4, 5, 6, 7])
                #expect(try await Self.changes(resumed, through: 7).map(\.seq) == [6, 7])
                let new = try await Self.changes(fromHead, through: 7)
                #expect(new.map(\.seq) == [7])
                #expect((new.first?.json["row"] as? [String: Any])?["title"] as? String == "six")
            }
        }

        @Test func aPositionThePruningPassedGetsAReset() async throws {
            try await ServedShelf.with { served in
                // A client following from the head falls behind the pruning within one commit.
                let following = try await EventStream(served, "/api/changes")
                let atZero = try await EventStream(served, "/api/changes?after=1")
                try await Self.pruneTheLog(served)
                for stream in [following, atZero] {
                    let reset = try #require(try await stream.next { $0.event != "change" })
                    #expect(reset.event == "reset")
                    // No id of its own: the client's last event id stays the position the
                    // stream began with (its first event, an `id:` alone), 1 for both.
                    #expect(reset.id == "1")
                    #expect((reset.json["detail"] as? String)?.contains("read the items and users again") == true)
                    #expect((reset.json["head"] as? NSNumber)?.int64Value == 12_001)
                    #expect(try await stream.next() == nil, "the stream ends after a reset")
                }
                // Asked for afterwards, the same position gets the reset at once.
                let late = try await EventStream(served, "/api/changes?after=0")
                let first = try #require(try await late.next())
                #expect(first.event == "reset")
                // From a position the log still holds, the changes come.
                let kept = try await EventStream(served, "/api/changes?after=11990")
                #expect(try await Self.changes(kept, through: 12_001).map(\.seq) == Array(11_991...12_001))
            }
        }

        /// As every `/api` route: a token is needed once one exists; a read-only one reads the
        /// changes (a token reads everything); the stream ends with a 401 once it is revoked.
        @Test func theStreamNeedsATokenAndEndsWhenItIsRevoked() async throws {
            let tokens = TokenScopeTests.Tokens()
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                tokens.add(
                    try cli.run(["tokens", "create", "--user", "ann@example.com", "--name", "ann", "--read-only"]))
            }
            try await ServedShelf.with(prepare: prepare) { served in
                let refused = try await served.get("/api/changes?after=0")
                #expect(refused.status == 401)
                let stream = try await EventStream(
                    served, "/api/changes?after=0", headers: [("Authorization", "Bearer \(tokens[0])")])
                #expect(stream.status == 200)
                #expect(try await stream.next()?.json["table"] as? String == "users")
                #expect(try await served.shelf.runAsync(["tokens", "revoke", "ann"]).status == 0)
                let last = try await stream.next { $0.event == "error" }
                #expect(last?.json["status"] as? Int == 401)
                #expect(try await stream.next() == nil, "the stream ended")
            }
        }

        /// A live window resumed from an id past the log's head (kept by a client across a
        /// restore that went back) gets the current window at once; it used to stay silent until
        /// the window changed past that id, perhaps never (hostile tester, this round).
        @Test func aLiveWindowResumedPastTheHeadGetsTheCurrentWindow() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "one"])
            }
            try await ServedShelf.with(prepare: prepare) { served in
                for id in ["999999999", "3"] {
                    let stream = try await EventStream(
                        served, "/api/items/live?limit=1", headers: [("Last-Event-ID", id)])
                    let first = try #require(try await stream.next(), "no window for Last-Event-ID \(id)")
                    #expect(first.event == "window")
                    #expect(first.json["count"] as? Int == 1)
                }
            }
        }

        @Test func aBadPositionIsAClear400() async throws {
            try await ServedShelf.with { served in
                let cases: [(String, [(String, String)], String)] = [
                    ("/api/changes?after=-1", [], "'-1' is not a change-log position"),
                    ("/api/changes?after=moth", [], "'moth' is not a change-log position"),
                    ("/api/changes?after=99999999999999999999999", [], "is not a change-log position"),
                    ("/api/changes?after=1.5", [], "is not a change-log position"),
                    ("/api/changes?after=", [], "is not a change-log position"),
                    ("/api/changes?after=2", [], "2 lies past the change log's head (1)"),
                    ("/api/changes", [("Last-Event-ID", "x1")], "Last-Event-ID 'x1' is not a change-log position"),
                    ("/api/changes?since=1", [], "unknown parameter 'since'"),
                    ("/api/changes?after=x", [("Last-Event-ID", "1")], "parameter 'after' 'x' is not a change-log"),
                ]
                for (path, headers, detail) in cases {
                    let reply = try await served.get(path, headers: headers)
                    #expect(reply.status == 400, "\(path)")
                    #expect(reply["Content-Type"] == "application/problem+json", "\(path)")
                    #expect(reply.detail.contains(detail), "\(path): \(reply.detail)")
                }
            }
        }
    }

    extension ServerSentEvent {
        /// The event's `seq` field.
        var seq: Int64? { (json["seq"] as? NSNumber)?.int64Value }
    }
#endif
