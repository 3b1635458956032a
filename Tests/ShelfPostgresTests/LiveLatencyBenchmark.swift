#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import Synchronization
    import Testing

    /// Commit-to-observer latency of `PostgresChangeFeed`, printed, not asserted (speed belongs
    /// in Benchmarks/; this is its first home). Off by default:
    ///
    ///     SHELF_LIVE_LATENCY=300 swift test --traits PostgreSQL --skip-build --filter LiveLatencyBenchmark
    ///
    /// Each round inserts one row on the writer connection (autocommit) and waits until an
    /// observation of a live `count(*)` (read on another connection) delivers the new count. The
    /// latency runs from just before the INSERT is sent to the observer's call, so it covers the
    /// commit, the notification, the re-read and the delivery. For scale, it also prints a bare
    /// `SELECT count(*)` round trip (the re-read alone), and how many re-runs 1,000 commits made
    /// back to back cost (coalescing).
    @Suite(
        .serialized,
        .enabled(
            if: PostgresServer.url != nil && ProcessInfo.processInfo.environment["SHELF_LIVE_LATENCY"] != nil,
            "set SHELF_LIVE_LATENCY=<commits> (and SHELF_TEST_POSTGRES) to measure"))
    struct LiveLatencyBenchmark {
        @Test func commitToObserverLatency() async throws {
            let rounds = Int(ProcessInfo.processInfo.environment["SHELF_LIVE_LATENCY"] ?? "") ?? 300
            try await LiveTestDatabase.with { database in
                let feed = database.makeFeed()
                let reader = try await database.connect()
                let writer = try await database.connect()
                let fetches = Counter()
                let count = try await feed.live(reading: ["items"]) {
                    fetches.increment()
                    return try await reader.integer("SELECT count(*) FROM items")
                }
                let (seen, continuation) = AsyncStream.makeStream(of: (Int, ContinuousClock.Instant).self)
                let token = Lifetime.Token()
                count.changes.observe(during: token.lifetime) { result in
                    if case .success(let value) = result { continuation.yield((value, .now)) }
                }
                var iterator = seen.makeAsyncIterator()
                var latencies: [Duration] = []
                for round in 1...rounds {
                    let start = ContinuousClock.now
                    try await writer.run("INSERT INTO items (title) VALUES ('round \(round)')")
                    while let (value, at) = await iterator.next() {
                        if value == round {
                            latencies.append(at - start)
                            break
                        }
                    }
                }
                token.end()
                continuation.finish()

                var reads: [Duration] = []
                for _ in 1...rounds {
                    let start = ContinuousClock.now
                    _ = try await reader.integer("SELECT count(*) FROM items")
                    reads.append(.now - start)
                }

                let before = fetches.value
                for index in 1...1000 {
                    try await writer.run("INSERT INTO items (title) VALUES ('burst \(index)')")
                }
                try await waitUntil("the burst is counted", limit: .seconds(180)) {
                    count.value == .success(rounds + 1000)
                }
                let burstRuns = fetches.value - before

                latencies.sort()
                reads.sort()
                print(
                    "PostgresChangeFeed commit → observer over \(latencies.count) commits: p50 \(ms(percentile(0.5, of: latencies))), "
                        + "p99 \(ms(percentile(0.99, of: latencies))), max \(ms(latencies.last ?? .zero)), min \(ms(latencies.first ?? .zero))"
                )
                print(
                    "  the re-read alone (SELECT count(*) round trip): p50 \(ms(percentile(0.5, of: reads))), "
                        + "p99 \(ms(percentile(0.99, of: reads)))")
                print("  1,000 commits back to back (one connection, autocommit): \(burstRuns) re-runs")
                #expect(latencies.count == rounds)
            }
        }

        /// From `pg_terminate_backend` of the listening connection (which signals the backend and
        /// returns; its variant with a timeout polls every 100 ms, which would be measured too) to
        /// the fresh value after the reconnect, 20 times. The commit in between is made once the
        /// loss shows, so only the reconnect (or the notification after it) can deliver it.
        @Test func reconnectTime() async throws {
            try await LiveTestDatabase.with { database in
                let feed = database.makeFeed()
                let reader = try await database.connect()
                let writer = try await database.connect()
                let count = try await feed.live(reading: ["items"]) {
                    try await reader.integer("SELECT count(*) FROM items")
                }
                var recoveries: [Duration] = []
                for round in 1...20 {
                    let pid = try #require(try await database.listenerPID())
                    let start = try await database.onServer { server in
                        let start = ContinuousClock.now
                        _ = try await server.integer("SELECT CASE WHEN pg_terminate_backend(\(pid)) THEN 1 ELSE 0 END")
                        return start
                    }
                    try await waitUntil("the loss shows") { count.value.failureValue != nil }
                    try await writer.run("INSERT INTO items (title) VALUES ('round \(round)')")
                    try await waitUntil("round \(round) is seen", limit: .seconds(120)) {
                        count.value == .success(round)
                    }
                    recoveries.append(.now - start)
                }
                recoveries.sort()
                print(
                    "PostgresChangeFeed terminate → fresh value over \(recoveries.count) reconnects (10 ms polling): "
                        + "p50 \(ms(percentile(0.5, of: recoveries))), max \(ms(recoveries.last ?? .zero))")
            }
        }
    }

    private func percentile(_ p: Double, of values: [Duration]) -> Duration {
        values[min(values.count - 1, Int((Double(values.count) * p).rounded(.up)) - 1)]
    }

    private func ms(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.2f ms", seconds * 1000)
    }
#endif
