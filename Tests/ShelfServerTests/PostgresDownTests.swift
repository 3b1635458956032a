#if Server && PostgreSQL
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// While its PostgreSQL server is down, `shelf serve` answers 503 with `Retry-After` (the
    /// client should come back; nothing was done), `/healthz` too, and it serves again once the
    /// server is back, without a restart. (It answered 500 "cannot reach…", which clients and
    /// load balancers take for a bug rather than a moment to wait.)
    @Suite(
        .serialized,
        .enabled(
            if: InstancesTests.postgres != nil && ThrowawayCluster.binFolder != nil,
            "set SHELF_TEST_POSTGRES, with PostgreSQL's programs installed, to run it"))
    struct PostgresDownTests {
        @Test func aServerThatIsDownGets503WithRetryAfterAndServingResumesWhenItIsBack() async throws {
            let cluster = try await RawConnection.onThread { try ThrowawayCluster() }
            defer { cluster.remove() }
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "Kite"])
            }
            try await ServedShelf.with(location: cluster.url, prepare: prepare) { served in
                #expect(try await served.get("/api/items").status == 200)
                try await RawConnection.onThread { try cluster.stop() }
                for path in ["/api/items", "/api/items/1", "/api/users", "/healthz"] {
                    let reply = try await served.get(path)
                    #expect(reply.status == 503, "\(path) answered \(reply.status): \(reply.body)")
                    #expect(reply["Retry-After"] == "1", "\(path): no Retry-After")
                    #expect(reply["Content-Type"] == "application/problem+json", "\(path)")
                    #expect(
                        reply.detail.contains("cannot reach the PostgreSQL server at 127.0.0.1:"), "\(reply.detail)")
                }
                let write = try await served.send(
                    .POST, "/api/items", json: #"{"title": "Lamp", "user": "ann@example.com"}"#)
                #expect(write.status == 503, "\(write.body)")
                #expect(write["Retry-After"] == "1")
                try await RawConnection.onThread { try cluster.start() }
                var back = false
                for _ in 0..<120 where !back {
                    back = (try? await served.get("/api/items"))?.status == 200
                    if !back { try await Task.sleep(for: .seconds(1)) }
                }
                #expect(back, "the server did not serve again after PostgreSQL came back")
                // The write refused while it was down left nothing.
                let items = try await served.get("/api/items")
                #expect(items.json["count"] as? Int == 1, "\(items.body)")
            }
        }
    }
#endif
