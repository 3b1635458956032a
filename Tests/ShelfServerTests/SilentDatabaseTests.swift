#if Server && PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// `shelf serve` over a network to PostgreSQL that falls silent (drops everything, closes
    /// nothing; `SilenceableProxy`) while its pool's connections sit idle: every request gets a
    /// 503 with `Retry-After` within about 30 s, however many database calls it makes, and the
    /// service serves again by itself once the network speaks again.
    @Suite(.serialized) struct SilentDatabaseTests {
        /// Hostile round 10: with the connections idle past the pool's idle check (30 s), each
        /// request's call found its connection silent (10 s), gave it back and then waited for a
        /// new one with nothing checking the server: every request hung until the network
        /// spoke again (70 s here, 65 s there).
        @Test(.enabled(if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func requestsOverASilentNetworkGet503WithinAboutThirtySecondsAndServingResumes() async throws {
            let server = try #require(InstancesTests.postgres)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                var components = try #require(URLComponents(string: url))
                let proxy = try SilenceableProxy(to: try #require(components.port))
                defer { proxy.close() }
                components.port = proxy.port
                let through = try #require(components.string)
                try await ServedShelf.with(location: through) { served in
                    // Requests at once: the pool opens several connections.
                    let warm = try await Self.concurrently(served, Array(repeating: "/api/items", count: 4))
                    #expect(warm.allSatisfy { $0.reply.status == 200 }, "\(warm.map(\.reply.body))")
                    // Idle past the pool's idle check (30 s), not past postgres-nio's idle close (60 s).
                    try await Task.sleep(for: .seconds(32))
                    proxy.fallSilent()
                    // A build that hangs still ends: the network speaks again after 75 s.
                    let speaker = Task {
                        try await Task.sleep(for: .seconds(75))
                        proxy.speakAgain()
                    }
                    let silent = try await Self.concurrently(
                        served, ["/api/items?limit=1", "/api/items?limit=2", "/api/items", "/api/users"])
                    speaker.cancel()
                    proxy.speakAgain()
                    for (path, reply, elapsed) in silent {
                        #expect(reply.status == 503, "\(path) answered \(reply.status) after \(elapsed): \(reply.body)")
                        #expect(reply["Retry-After"] == "1", "\(path): no Retry-After")
                        #expect(reply.detail.contains("127.0.0.1:\(proxy.port)"), "\(path): \(reply.detail)")
                        // About 30 s at most (the limit); 45 s leaves a loaded machine its margin.
                        #expect(elapsed < .seconds(45), "\(path) took \(elapsed)")
                    }
                    var back = false
                    for _ in 0..<90 where !back {
                        back = (try? await served.get("/api/items"))?.status == 200
                        if !back { try await Task.sleep(for: .seconds(1)) }
                    }
                    #expect(back, "the server did not serve again once the network spoke again")
                }
            }
        }

        /// GETs of `paths`, all at once: each with its reply and how long it took.
        static func concurrently(_ served: ServedShelf, _ paths: [String]) async throws
            -> [(path: String, reply: ServedShelf.Reply, elapsed: Duration)]
        {
            try await withThrowingTaskGroup(of: (String, ServedShelf.Reply, Duration).self) { group in
                for path in paths {
                    group.addTask {
                        let start = ContinuousClock.now
                        let reply = try await served.get(path)
                        return (path, reply, ContinuousClock.now - start)
                    }
                }
                var replies: [(path: String, reply: ServedShelf.Reply, elapsed: Duration)] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
        }
    }
#endif
