#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// A client killed in the middle of a stream (`kill -9` of a curl) is noticed when its
    /// connection closes, not at the stream's next keep-alive (15 s): the stream gauges drop.
    @Suite(.serialized) struct VanishedClientTests {
        /// The value of `name` in `/metrics`, or nil when the line is missing.
        static func gauge(_ name: String, in served: ServedShelf) async throws -> Int? {
            let metrics = try await served.get("/metrics")
            let line = metrics.body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
        }

        /// Polls `/metrics` until `name` reads `value`, for at most `limit` (well under the
        /// keep-alive, after which a write would notice the vanished client anyway).
        static func wait(until name: String, is value: Int, in served: ServedShelf, within limit: Duration)
            async throws -> Bool
        {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if try await gauge(name, in: served) == value { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        @Test(arguments: [
            ("/api/items/live?limit=5", "shelf_live_streams"), ("/api/changes?after=0", "shelf_change_streams"),
        ])
        func aKilledClientsStreamEndsWhenItsConnectionCloses(path: String, gauge: String) async throws {
            // A 60 s keep-alive: without noticing the close, the gauge would stay at 1 that long,
            // so waiting up to 30 s for it to drop still shows the close was noticed, on a
            // machine loaded enough to hold the server back for seconds (CI, beside other builds).
            try await ServedShelf.with(arguments: ["--keep-alive", "60"]) { served in
                let output = served.folder.path("curl-\(UUID().uuidString).out")
                let curl = try ChildProcess(
                    "/usr/bin/curl", ["-sN", served.base + path], environment: ["PATH": "/usr/bin:/bin"],
                    stdout: output)
                // The stream is open once its first event has arrived.
                let opened = await ServedShelf.poll {
                    ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("data: ") ? true : nil
                }
                try #require(opened == true, "curl read no event from \(path)")
                #expect(try await Self.gauge(gauge, in: served) == 1)
                curl.signal(SIGKILL)
                _ = curl.wait()
                let dropped = try await Self.wait(until: gauge, is: 0, in: served, within: .seconds(30))
                #expect(dropped, "\(gauge) still counts the killed client's stream")
            }
        }
    }
#endif
