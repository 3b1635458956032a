#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// Hostile round 12: a POST whose body stopped short of its `Content-Length`, the client
    /// then closing its sending side, got a 500 "the server failed: stream ended at an
    /// unexpected time", as if the server had broken. It is the client's request that is
    /// incomplete: a 400 problem that says so and that nothing was stored.
    @Suite(.serialized) struct CutBodyTests {
        @Test func aBodyCutShortIsA400AndNothingIsStored() async throws {
            try await ServedShelf.with { served in
                let base = served.base
                let answer = try await RawConnection.onThread { () -> String in
                    let connection = try RawConnection(base)
                    _ = connection.send(
                        "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 48\r\n\r\n{\"title\": \"Kite\", \"us")
                    shutdown(connection.descriptor, Int32(SHUT_WR))
                    var bytes: [UInt8] = []
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        guard let more = connection.receiveAvailable() else { break }
                        bytes += more
                        if more.isEmpty { usleep(20_000) }
                    }
                    return String(decoding: bytes, as: UTF8.self)
                }
                #expect(answer.contains(" 400 Bad Request\r\n"), "\(answer)")
                #expect(answer.contains("application/problem+json"), "\(answer)")
                #expect(answer.contains("nothing was stored"), "\(answer)")
                #expect(!answer.contains(" 500 "), "\(answer)")
                let items = try await served.get("/api/items")
                #expect(items.json["count"] as? Int == 0, "\(items.body)")
                let metrics = try await served.get("/metrics").body
                #expect(!metrics.contains("status=\"500\""), "\(metrics)")
            }
        }
    }
#endif
