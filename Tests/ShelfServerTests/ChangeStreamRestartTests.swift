#if Server && PostgreSQL
    import Foundation
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// `GET /api/changes` across a PostgreSQL restart, the server's connections ended
    /// (`pg_terminate_backend`) and the server stopped for 3 s, on a cluster of the test's own (issue 24, hostile tester: the
    /// stream ended with an error event at the restart). It goes on by itself, from the last
    /// position it sent: every change arrives once, in seq order.
    @Suite(
        .serialized,
        .enabled(
            if: InstancesTests.postgres != nil && ThrowawayCluster.binFolder != nil,
            "set SHELF_TEST_POSTGRES, with PostgreSQL's programs installed, to run it"))
    struct ChangeStreamRestartTests {
        @Test func aChangeStreamGoesOnAcrossARestartAndEndedConnections() async throws {
            let cluster = try await Self.onThread { try ThrowawayCluster() }
            defer { cluster.remove() }
            let url = cluster.url
            try await ServedShelf.with(arguments: ["--keep-alive", "1"], location: url) { served in
                let whole = try await EventStream(served, "/api/changes?after=0")
                let head = try await PostgresChangeStreamTests.head(url)
                let fromNow = try await EventStream(served, "/api/changes")
                let position = try await fromNow.lastEventID(withinComments: 3).flatMap { Int64($0) }
                #expect(position == head, "a stream from now gives its position at once")
                let start = position ?? head
                for number in 1...3 { try await ChangeStreamPositionTests.add("before \(number)", to: served) }
                let psql = try await PostgresChangeStreamTests.psql(
                    url, "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'psql before', 1, 1)")
                #expect(psql.status == 0)

                // A writer that goes on through the restart and the stop below (its inserts fail
                // while the server is away), so the streams read while it goes away.
                let writing = Mutex(true)
                let writer = Task {
                    var number = 0
                    while writing.withLock({ $0 }) {
                        number += 1
                        _ = try await PostgresChangeStreamTests.psql(
                            url,
                            "INSERT INTO items (user_id, title, created_at, updated_at) "
                                + "VALUES (1, 'writer \(number)', 1, 1)")
                    }
                    return number
                }
                try await Task.sleep(for: .milliseconds(500))
                try await Self.onThread { try cluster.restart() }
                for number in 1...3 { try await ChangeStreamPositionTests.add("after restart \(number)", to: served) }
                let killed = try await PostgresChangeStreamTests.psql(
                    url,
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        + "WHERE application_name LIKE 'shelf%' AND pid <> pg_backend_pid()")
                #expect(killed.status == 0, "\(killed.output)")
                for number in 1...3 {
                    try await ChangeStreamPositionTests.add("after termination \(number)", to: served)
                }
                // Down for a while: the streams try to read while it is away (the change feed
                // wakes them when it loses its connection), then it is back.
                try await Self.onThread { try cluster.stop() }
                try await Task.sleep(for: .seconds(3))
                try await Self.onThread { try cluster.start() }
                writing.withLock { $0 = false }
                #expect(try await writer.value > 0)
                try await ChangeStreamPositionTests.add("after the stop", to: served)

                let logged = try await PostgresChangeStreamTests.psql(
                    url,
                    "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM shelf_change_log "
                        + "WHERE table_name IN ('items', 'users')")
                let seqs = logged.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
                    .compactMap { Int64($0) }
                let last = try #require(seqs.last)
                let titles = [
                    "before 1", "before 2", "before 3", "psql before", "after restart 1", "after restart 2",
                    "after restart 3", "after termination 1", "after termination 2", "after termination 3",
                    "after the stop",
                ]
                for (stream, expected) in [(whole, seqs), (fromNow, seqs.filter { $0 > start })] {
                    let events = try await ChangeStreamTests.changes(stream, through: last)
                    #expect(events.allSatisfy { $0.event == "change" }, "\(events.map(\.data))")
                    #expect(events.compactMap(\.seq) == expected, "every change once, in seq order")
                    let items = events.filter { $0.json["table"] as? String == "items" }
                        .map { ($0.json["row"] as? [String: Any])?["title"] as? String ?? "" }
                    #expect(items.filter { !$0.hasPrefix("writer ") } == titles)
                }
            }
        }

        /// Runs `body` on a plain thread (it blocks: initdb, pg_ctl) and waits.
        static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
            }
        }
    }
#endif
