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
                let answer = try await RawConnection.exchange(
                    served.base,
                    "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 48\r\n\r\n{\"title\": \"Kite\", \"us", halfClose: true
                ).text
                #expect(answer.contains(" 400 Bad Request\r\n"), "\(answer)")
                #expect(answer.contains("application/problem+json"), "\(answer)")
                #expect(answer.contains("nothing was stored"), "\(answer)")
                // How much of the announced body came (21 of 48 bytes).
                #expect(answer.contains("21 of the 48 bytes its Content-Length announced"), "\(answer)")
                #expect(!answer.contains(" 500 "), "\(answer)")
                let items = try await served.get("/api/items")
                #expect(items.json["count"] as? Int == 0, "\(items.body)")
                let metrics = try await served.get("/metrics").body
                #expect(!metrics.contains("status=\"500\""), "\(metrics)")
            }
        }

        /// Hostile round 12: a request whose head stopped short (no blank line), the client then
        /// closing its sending side, got a bare 400, no body: now the problem saying so.
        @Test func aHeadCutShortIsA400ProblemSayingSo() async throws {
            try await ServedShelf.with { served in
                let answer = try await RawConnection.exchange(
                    served.base, "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty", halfClose: true)
                #expect(answer.closed, "the connection stayed open: \(answer.text)")
                #expect(answer.text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer.text)")
                #expect(answer.text.contains("application/problem+json"), "\(answer.text)")
                #expect(answer.text.contains("the request's head was cut short"), "\(answer.text)")
                #expect(answer.text.contains("nothing was stored: send the whole request again"), "\(answer.text)")
                #expect(try await served.get("/api/items").json["count"] as? Int == 0)
            }
        }

        /// Hostile round 13: a POST with no body at all was told its JSON "ends where a value
        /// should be at byte 1"; it is told it has no body.
        @Test func aRequestWithNoBodyIsToldSo() async throws {
            try await ServedShelf.with { served in
                let answer = try await RawConnection.exchange(
                    served.base,
                    "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 0\r\nConnection: close\r\n\r\n"
                ).text
                #expect(answer.contains(" 400 Bad Request\r\n"), "\(answer)")
                #expect(answer.contains("the request has no body"), "\(answer)")
                #expect(!answer.contains("where a value should be"), "\(answer)")
                #expect(try await served.get("/api/items").json["count"] as? Int == 0)
            }
        }
    }
#endif
