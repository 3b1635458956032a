#if Server
    import Foundation
    import Testing

    #if PostgreSQL
        import ShelfPostgresTesting
    #endif

    /// A change stream from now (no `after`, no `Last-Event-ID`) gives its position at once, as
    /// an event of an `id:` alone (issue 24, hostile tester: it sent no id until the first change,
    /// so a client that went before it had nothing to resume from and missed what was committed
    /// while it was away).
    @Suite struct ChangeStreamPositionTests {
        @Test func aStreamFromNowGivesItsPositionAtOnceOnSQLite() async throws {
            try await ServedShelf.with(arguments: ["--keep-alive", "1"]) { served in
                try await Self.resumeFromTheFirstPosition(served)
            }
        }

        #if PostgreSQL
            @Test(
                .enabled(
                    if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
            func aStreamFromNowGivesItsPositionAtOnceOnPostgreSQL() async throws {
                let server = try #require(InstancesTests.postgres)
                try await PostgresScratch.withDatabase(serverURL: server) { url in
                    try await ServedShelf.with(arguments: ["--keep-alive", "1"], location: url) { served in
                        try await Self.resumeFromTheFirstPosition(served)
                    }
                }
            }
        #endif

        /// An empty `Last-Event-ID` is no id (an EventSource whose last `id:` was empty sends
        /// none): the stream starts from now, as without the header; it was a 400.
        @Test func anEmptyLastEventIDIsNoID() async throws {
            try await ServedShelf.with(arguments: ["--keep-alive", "1"]) { served in
                let stream = try await EventStream(served, "/api/changes", headers: [("Last-Event-ID", "")])
                #expect(stream.status == 200)
                let position = try await stream.lastEventID(withinComments: 3)
                let id = try #require(position, "no id before the keep-alives: \(stream.comments)")
                #expect(Int64(id) != nil, "'\(id)' is a change-log position")
            }
        }

        /// Adds an item, opens a stream from now, reads its id (before any keep-alive: with
        /// `--keep-alive 1`, three of them without an id fail the test), goes away, adds two items,
        /// and resumes with that id: exactly those two arrive, in order.
        static func resumeFromTheFirstPosition(_ served: ServedShelf) async throws {
            try await add("Before", to: served)
            var stream: EventStream? = try await EventStream(served, "/api/changes")
            let position = try await stream?.lastEventID(withinComments: 3)
            let id = try #require(position, "no id before the keep-alives: \(stream?.comments ?? [])")
            #expect(Int64(id) != nil, "'\(id)' is a change-log position")
            // The client goes before any change.
            stream = nil
            try await add("While away 1", to: served)
            try await add("While away 2", to: served)
            let resumed = try await EventStream(served, "/api/changes", headers: [("Last-Event-ID", id)])
            var titles: [String] = []
            while titles.count < 2, let event = try await resumed.next() {
                #expect(event.event == "change", "\(event.data)")
                titles.append((event.json["row"] as? [String: Any])?["title"] as? String ?? event.data)
            }
            #expect(titles == ["While away 1", "While away 2"])
        }

        static func add(_ title: String, to served: ServedShelf) async throws {
            let added = try await served.shelf.runAsync([
                "items", "add", "--user", "ann@example.com", "--title", title,
            ])
            #expect(added.status == 0, "\(title): \(added.error)")
        }
    }
#endif
