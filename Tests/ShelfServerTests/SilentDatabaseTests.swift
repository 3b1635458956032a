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
            try await Self.withServedThroughProxy { served, proxy in
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
                    served, ["/api/items?limit=1", "/api/items?limit=2", "/api/items", "/api/users", "/healthz"])
                speaker.cancel()
                proxy.speakAgain()
                for (path, reply, elapsed) in silent {
                    // The health check within its own 5 s limit (before stop 17: the routes' 30 s),
                    // as a load balancer's check gives up after a few seconds; 20 s for the load.
                    if path == "/healthz" { #expect(elapsed < .seconds(20), "/healthz took \(elapsed)") }
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

        /// Hostile round 10: over a network gone silent, `GET /api/changes` ended 71 s after
        /// the silence (each try to read the log waited 11-25 s, and the 30 s counted from the
        /// first failure), and its comment stopped mid-word (cut at 80 characters). Then (issue
        /// 24) 42 s: the change feed tells the stream of the loss 11-12 s after the silence (its
        /// check unanswered for 10 s, then its 1 s grace), and the 30 s counted from the read
        /// that followed. Now they count from when the feed last heard the server: the stream
        /// ends about 30 s after the silence, the comment says the whole message and the id to
        /// resume from, and the stream ends in an `event: error`.
        @Test(.enabled(if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aChangeStreamOverASilentNetworkEndsWithAWholeCommentAndAnError() async throws {
            try await Self.withServedThroughProxy(arguments: ["--verbose"]) { served, proxy in
                let stream = try await EventStream(served, "/api/changes?after=0")
                #expect(stream.status == 200)
                // The user's insert: the stream is open and has read the log.
                let first = try await stream.next { $0.event == "change" }
                let position = try #require(first?.id)
                proxy.fallSilent()
                let silent = ContinuousClock.now
                // A build that hangs still ends: the network speaks again after 120 s.
                let speaker = Task {
                    try await Task.sleep(for: .seconds(120))
                    proxy.speakAgain()
                }
                let error = try await stream.next { $0.event == "error" }
                let elapsed = ContinuousClock.now - silent
                speaker.cancel()
                proxy.speakAgain()
                let detail = error?.json["detail"] as? String ?? ""
                #expect(
                    detail.contains("reconnect with Last-Event-ID: \(position)"),
                    "\(error?.data ?? "no error event")")
                let comment = stream.comments.first { $0.contains("cannot be read") } ?? ""
                #expect(comment.contains("127.0.0.1:\(proxy.port)"), "\(comment)")
                #expect(comment.contains("trying again until 30 s after the database last answered ("), "\(comment)")
                #expect(comment.hasSuffix(" s more), from id \(position)"), "\(comment)")
                // The stream's read comes after the feed noticed the loss (11-12 s): what is left
                // of the 30 s then is under 20 s, however loaded the machine (counted from the
                // read, as before, it was 30 s).
                let left = comment.split(separator: "(").last.flatMap { Int($0.prefix { $0.isNumber }) }
                #expect(left.map { $0 < 20 } == true, "\(comment)")
                // The timings, from the server's log (the feed's loss, the stream's failed read).
                let log = served.standardError.split(separator: "\n").filter {
                    $0.contains("change feed") || $0.contains("change stream")
                }
                print("silent network: the stream ended \(elapsed) after the silence; \(log.joined(separator: "\n"))")
                // About 30 s. Before: 58-71 s (hostile round 10), then 42 s; 40 s leaves a loaded
                // machine its margin.
                #expect(elapsed < .seconds(40), "the stream ended \(elapsed) after the silence")
            }
        }

        /// Serves a scratch database through a `SilenceableProxy`, which `body` can make fall
        /// silent.
        static func withServedThroughProxy(
            arguments: [String] = [], _ body: (ServedShelf, SilenceableProxy) async throws -> Void
        ) async throws {
            let server = try #require(InstancesTests.postgres)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                var components = try #require(URLComponents(string: url))
                let proxy = try SilenceableProxy(to: try #require(components.port))
                defer { proxy.close() }
                components.port = proxy.port
                let through = try #require(components.string)
                try await ServedShelf.with(arguments: arguments, location: through) { served in
                    try await body(served, proxy)
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
