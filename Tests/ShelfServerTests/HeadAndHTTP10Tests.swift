#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// HEAD on every GET route, and HTTP/1.0 clients, which have no chunked coding.
    @Suite(.serialized) struct HeadAndHTTP10Tests {
        @Test func headAnswersEveryGetRoutesStatusAndHeadersWithoutABody() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "Catch the moth"])
            }
            try await ServedShelf.with(prepare: prepare) { served in
                let routes = [
                    "/healthz", "/api/items?limit=5", "/api/items/1", "/api/items/999", "/api/users", "/api/users/1",
                    "/api/views", "/api/items?limit=0",
                ]
                for path in routes {
                    let get = try await served.get(path)
                    let head = try await served.send(.HEAD, path)
                    #expect(head.status == get.status, "\(path)")
                    #expect(head.body.isEmpty, "\(path)")
                    for name in ["Content-Type", "Content-Length", "ETag", "Location"] {
                        #expect(head[name] == get[name], "\(path) \(name)")
                    }
                }
                // Metrics change with every request: only what they are.
                let metrics = try await served.send(.HEAD, "/metrics")
                #expect(metrics.status == 200 && metrics.body.isEmpty)
                #expect(metrics["Content-Type"]?.hasPrefix("text/plain") == true)
                // The streams: their head, and no stream started.
                for path in ["/api/items/live", "/api/changes?after=0"] {
                    let head = try await served.send(.HEAD, path)
                    #expect(head.status == 200, "\(path)")
                    #expect(head["Content-Type"] == "text/event-stream", "\(path)")
                    #expect(head.body.isEmpty, "\(path)")
                    let bad = try await served.send(.HEAD, path + (path.contains("?") ? "&" : "?") + "limit=x")
                    #expect(bad.status == 400, "\(path)")
                }
                let metricsAfter = try await served.get("/metrics")
                #expect(metricsAfter.body.contains("shelf_live_streams 0"))
                // The 405 of a route names HEAD among its methods.
                let put = try await served.send(.PUT, "/api/items/1")
                #expect(put.status == 405)
                #expect(put["Allow"] == "GET, HEAD, PATCH, DELETE")
            }
        }

        /// Sends `request` on a connection of its own and reads until `done` says the bytes so far
        /// suffice, or the server closes (then `closed` is true), within 180 s.
        static func exchange(_ base: String, _ request: String, until done: @escaping @Sendable (String) -> Bool)
            async throws -> (text: String, closed: Bool)
        {
            try await RawConnection.exchange(base, request, within: .seconds(180), until: done)
        }

        @Test func anHTTP10LiveStreamIsSentRawAndEndsWithTheConnection() async throws {
            try await ServedShelf.with { served in
                let live = try await Self.exchange(
                    served.base, "GET /api/items/live HTTP/1.0\r\nHost: localhost\r\n\r\n",
                    until: { $0.contains("event: window\ndata: {") && $0.hasSuffix("}\n\n") })
                let (head, body) = Self.split(live.text)
                #expect(head.hasPrefix("HTTP/1.0 200"), "\(head)")
                #expect(!head.lowercased().contains("transfer-encoding"), "no chunked coding for HTTP/1.0: \(head)")
                #expect(head.lowercased().contains("connection: close"))
                // The body is the events themselves, not chunk sizes before them.
                var parser = EventStreamParser()
                let events = parser.feed(Array(body.utf8))
                #expect(events.first?.event == "window", "\(body)")
                #expect(body.hasPrefix("id: "), "\(body)")

                // A change stream that ends (here with a reset) ends the connection: that is
                // where an HTTP/1.0 client learns the body is over.
                _ = try await served.cli(
                    sqlite: """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
                        INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                        SELECT 1, 'bulk ' || i, 'open', 1, 1700000000000, 1700000000000 FROM n
                        """)
                let changes = try await Self.exchange(
                    served.base, "GET /api/changes?after=0 HTTP/1.0\r\n\r\n", until: { _ in false })
                #expect(changes.closed, "the server closes the connection at the stream's end")
                let (changesHead, changesBody) = Self.split(changes.text)
                #expect(changesHead.hasPrefix("HTTP/1.0 200"), "\(changesHead)")
                #expect(!changesHead.lowercased().contains("transfer-encoding"), "\(changesHead)")
                var changeParser = EventStreamParser()
                #expect(changeParser.feed(Array(changesBody.utf8)).map(\.event) == ["reset"], "\(changesBody)")

                // A response of known length keeps it; the connection closes after it.
                let items = try await Self.exchange(
                    served.base, "GET /api/items?limit=1 HTTP/1.0\r\n\r\n", until: { _ in false })
                #expect(items.closed)
                #expect(items.text.hasPrefix("HTTP/1.0 200"))
                #expect(items.text.lowercased().contains("content-length: "))
                #expect(Self.split(items.text).body.hasPrefix("{"))
                // HTTP/1.1 is as before: chunked.
                let chunked = try await Self.exchange(
                    served.base, "GET /api/items/live HTTP/1.1\r\nHost: localhost\r\n\r\n",
                    until: { $0.contains("event: window") })
                #expect(Self.split(chunked.text).head.lowercased().contains("transfer-encoding: chunked"))
            }
        }

        /// RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or with more than one, is a
        /// 400 (it was answered as if it were whole). HTTP/1.0 may leave Host out.
        @Test func anHTTP11RequestWithoutExactlyOneHostIsA400() async throws {
            try await ServedShelf.with { served in
                let faults = [
                    ("GET /api/items HTTP/1.1\r\nConnection: close\r\n\r\n", "has no Host header"),
                    ("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", "has no Host header"),
                    ("GET /nowhere HTTP/1.1\r\nConnection: close\r\n\r\n", "has no Host header"),
                    (
                        "GET /api/items HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                        "has 2 Host headers"
                    ),
                    (
                        "POST /api/items HTTP/1.1\r\nhost: 127.0.0.1\r\nHOST: 127.0.0.1\r\n"
                            + "Content-Type: application/json\r\nContent-Length: 41\r\nConnection: close\r\n\r\n"
                            + #"{"title": "x", "user": "ann@example.com"}"#,
                        "has 2 Host headers"
                    ),
                    // A client cannot mark its own request as faulty, nor unmark it.
                    (
                        "GET /api/items HTTP/1.1\r\nShelf-Host-Fault: 1\r\nConnection: close\r\n\r\n",
                        "has no Host header"
                    ),
                ]
                for (request, found) in faults {
                    let answer = try await Self.exchange(served.base, request, until: { _ in false })
                    let (head, body) = Self.split(answer.text)
                    #expect(head.hasPrefix("HTTP/1.1 400"), "\(request): \(head)")
                    #expect(head.lowercased().contains("content-type: application/problem+json"), "\(head)")
                    #expect(body.contains("this HTTP/1.1 request \(found)"), "\(request): \(body)")
                    #expect(body.contains("Host: 127.0.0.1:"), "says what to send: \(body)")
                }
                #expect(try await served.get("/api/items").body.contains(#""count":0"#), "nothing was stored")
                // HTTP/1.0 without Host, HTTP/1.1 with one, and a forged mark on a good request.
                let fine = [
                    "GET /api/items HTTP/1.0\r\n\r\n",
                    "GET /api/items HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                    "GET /api/items HTTP/1.1\r\nHost: localhost\r\nShelf-Host-Fault: missing\r\nConnection: close\r\n\r\n",
                ]
                for request in fine {
                    let answer = try await Self.exchange(served.base, request, until: { _ in false })
                    #expect(answer.text.contains(" 200 OK\r\n"), "\(request): \(answer.text.prefix(300))")
                }
            }
        }

        /// A response's head and body.
        static func split(_ text: String) -> (head: String, body: String) {
            guard let end = text.range(of: "\r\n\r\n") else { return (text, "") }
            return (String(text[..<end.lowerBound]), String(text[end.upperBound...]))
        }
    }
#endif
