#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// Health, metrics, the access log, CORS, and the end on SIGTERM.
    @Suite(.serialized) struct OperationsTests {
        @Test func healthMetricsAndTheAccessLog() async throws {
            try await ServedShelf.with { served in
                let health = try await served.get("/healthz")
                #expect(health.status == 200)
                #expect(health.json["status"] as? String == "ok")
                // Three times: the second and third are answered from kept bytes, and each is
                // counted by the counter the first made.
                for _ in 0..<3 { _ = try await served.get("/api/items") }
                _ = try await served.get("/api/items/999")
                let metrics = try await served.get("/metrics")
                #expect(metrics.status == 200)
                #expect(metrics["Content-Type"]?.hasPrefix("text/plain") == true)
                #expect(
                    metrics.body.contains(
                        #"shelf_http_requests_total{route="/api/items",method="GET",status="200"} 3"#),
                    "\(metrics.body)")
                #expect(metrics.body.contains(#"route="/api/items/{id}",method="GET",status="404"} 1"#))
                #expect(metrics.body.contains("shelf_live_streams 0"))
                #expect(metrics.body.contains("# TYPE shelf_live_delivery_seconds histogram"))
                let logged = await ServedShelf.poll { [served] in
                    served.standardError.contains("GET /api/items/999 404") ? true : nil
                }
                #expect(logged == true, "the access log: \(served.standardError)")
                // One line per request, as swift-log's StreamLogHandler wrote them:
                // `TIME info shelf.http: ms=0.3 route=/api/items/{id} [ShelfServer] GET /api/items/999 404`.
                let line = served.standardError.split(separator: "\n").first { $0.hasSuffix("GET /api/items/999 404") }
                let pattern =
                    #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info shelf\.http: ms=\d+\.\d route=/api/items/\{id\} \[ShelfServer\] GET /api/items/999 404$/#
                #expect(line.map { (try? pattern.wholeMatch(in: $0)) != nil } == true, "\(line ?? "no line")")
                let listed = served.standardError.split(separator: "\n").filter { $0.hasSuffix("GET /api/items 200") }
                #expect(listed.count == 3, "\(served.standardError)")
            }
        }

        @Test func corsAnswersTheOriginGiven() async throws {
            try await ServedShelf.with(arguments: ["--cors", "https://app.example.com"]) { served in
                let preflight = try await served.send(
                    .OPTIONS, "/api/items/1",
                    headers: [
                        ("Origin", "https://app.example.com"), ("Access-Control-Request-Method", "PATCH"),
                        ("Access-Control-Request-Headers", "If-Match, Authorization"),
                    ])
                #expect(preflight.status == 204 || preflight.status == 200)
                #expect(preflight["Access-Control-Allow-Origin"] == "https://app.example.com")
                #expect(preflight["Access-Control-Allow-Methods"]?.contains("PATCH") == true)
                #expect(preflight["Access-Control-Allow-Headers"]?.lowercased().contains("if-match") == true)
                let get = try await served.get("/api/items", headers: [("Origin", "https://app.example.com")])
                #expect(get["Access-Control-Allow-Origin"] == "https://app.example.com")
                #expect(get["Access-Control-Expose-Headers"]?.contains("ETag") == true)
                let other = try await served.get("/api/items", headers: [("Origin", "https://evil.example.com")])
                #expect(other["Access-Control-Allow-Origin"] != "https://evil.example.com")
            }
        }

        /// Ends at once, not when a timeout would: every timeout is set to a minute, and the
        /// bound (30 s, for a machine under load; alone it takes 0.2 s) is well inside it.
        @Test func sigtermEndsOpenStreamsAndExitsZero() async throws {
            let timeouts = [
                "--keep-alive", "60", "--header-timeout", "60", "--idle-timeout", "60", "--send-timeout", "60",
            ]
            try await ServedShelf.with(arguments: timeouts) { served in
                let stream = try await EventStream(served, "/api/items/live")
                #expect(try await stream.next()?.event == "window")
                let start = ContinuousClock.now
                served.deliver(SIGTERM)
                #expect(try await stream.next() == nil, "the stream ended")
                // Timed on the polling thread, not after this task gets a thread back.
                let ended = await ServedShelf.poll { served.isRunning ? nil : ContinuousClock.now - start }
                #expect(ended != nil)
                #expect((ended ?? .seconds(180)) < .seconds(30))
                #expect(served.exitStatus() == 0)
            }
        }

        /// `--send-timeout -1` said "Missing value" (the parser took -1 for an option): a negative
        /// number for any of serve's numbers gets the range it must be in.
        @Test func aNegativeNumberGetsItsRange() async throws {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let cli = ServedShelfCLI(databasePath: folder.path("shelf.sqlite"), folder: folder)
            for (option, range) in [
                ("--send-timeout", "1 to 3600 seconds"), ("--header-timeout", "1 to 3600 seconds"),
                ("--body-timeout", "1 to 3600 seconds"), ("--idle-timeout", "1 to 86400 seconds"),
                ("--keep-alive", "1 to 3600 seconds"), ("--port", "0 to 65535"),
            ] {
                let refused = try await cli.runAsync(["serve", option, "-1"])
                #expect(refused.status != 0, "\(option) -1")
                #expect(refused.error.contains("\(option) must be \(range)"), "\(option) -1: \(refused.error)")
                #expect(!refused.error.contains("Missing value"), "\(refused.error)")
            }
        }

        @Test func aPortInUseIsSaidSo() async throws {
            try await ServedShelf.with { served in
                let port = try #require(served.base.split(separator: ":").last.map(String.init))
                let second = try await served.shelf.runAsync(["serve", "--port", port])
                #expect(second.status == 1)
                #expect(second.error.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.error)")
            }
        }
    }
#endif
