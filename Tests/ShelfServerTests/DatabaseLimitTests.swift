#if Server && PostgreSQL
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// The request deadline (`Options.databaseLimit`, 30 s) bounds a request's database calls,
    /// not the store's long-lived work: a live stream opened first on a fresh server (which
    /// starts the change feed and the live query's runs) and writes through the API still
    /// work long past 30 s.
    @Suite(.serialized) struct DatabaseLimitTests {
        @Test(.enabled(if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func liveWindowsAndWritesStillWorkPastTheRequestDeadline() async throws {
            try await PostgresChangeStreamTests.withServed { served, _ in
                let stream = try await EventStream(served, "/api/items/live?limit=10")
                #expect(stream.status == 200)
                #expect(try await stream.next()?.event == "window")
                // A write through the API, whose task wakes the feed for later commits too.
                let first = try await served.send(
                    .POST, "/api/items", json: #"{"title": "Kite", "user": "ann@example.com"}"#)
                #expect(first.status == 201, "\(first.body)")
                #expect(try await stream.next { ($0.json["count"] as? Int) == 1 } != nil)
                try await Task.sleep(for: .seconds(35))
                let later = try await served.send(
                    .POST, "/api/items", json: #"{"title": "Lamp", "user": "ann@example.com"}"#)
                #expect(later.status == 201, "\(later.body)")
                let window = try await stream.next { $0.event != "window" || ($0.json["count"] as? Int) == 2 }
                #expect(window?.event == "window", "\(window?.data ?? "the stream ended")")
                #expect(window?.json["count"] as? Int == 2, "\(window?.data ?? "")")
            }
        }
    }
#endif
