#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// What a connection may hold: headers that never end, connections that send nothing, a body
    /// over the limit (hostile tester: each kept a connection, or the server reading, forever).
    @Suite(.serialized) struct ConnectionLimitTests {
        /// A client that sends header lines slowly and never ends them is closed after the
        /// header timeout (it was kept as long as it sent something: the idle timeout never came).
        @Test func headersThatNeverEndAreCutOff() async throws {
            try await ServedShelf.with(arguments: ["--header-timeout", "1"]) { served in
                let base = served.base
                let (closed, lines) = try await RawConnection.onThread { () -> (Bool, Int) in
                    let connection = try RawConnection(base)
                    guard connection.send("GET /api/items HTTP/1.1\r\nHost: localhost\r\n") else { return (true, 0) }
                    // One short line every 250 ms for at most 20 s: fewer lines than the decoder's
                    // field limit, never idle long enough for the idle timeout.
                    for line in 0..<80 {
                        usleep(250_000)
                        if connection.isClosedByServer || !connection.send("X-Slow-\(line): a\r\n") {
                            return (true, line)
                        }
                    }
                    return (false, 80)
                }
                #expect(closed, "the connection was still open after 20 s of headers")
                #expect(lines < 40, "closed only after \(lines) lines")
                #expect(try await served.get("/healthz").status == 200)
            }
        }

        /// Connections that never send a request are closed after the header timeout, and
        /// while they are open the server answers and its memory stays bounded.
        @Test func connectionsThatSendNothingAreClosed() async throws {
            try await ServedShelf.with(arguments: ["--header-timeout", "2"]) { served in
                let base = served.base
                let before = residentBytes(of: served.pid) ?? 0
                let connections = try await RawConnection.onThread {
                    try (0..<300).map { _ in try RawConnection(base) }
                }
                #expect(try await served.get("/api/items").status == 200, "the server answers beside them")
                let during = residentBytes(of: served.pid) ?? 0
                #expect(during - before < 64 << 20, "300 idle connections cost \(during - before) bytes")
                let allClosed = await ServedShelf.poll { connections.allSatisfy(\.isClosedByServer) ? true : nil }
                #expect(allClosed == true, "idle connections were still open after 60 s")
                #expect(try await served.get("/healthz").status == 200)
            }
        }

        /// A chunked body that goes on past the limit gets its 413 and the connection closes:
        /// the server does not read the rest (it read all of it, to reach a next request).
        @Test func aBodyOverTheLimitIsNotReadToItsEnd() async throws {
            try await ServedShelf.with { served in
                let base = served.base
                let (sent, reply) = try await RawConnection.onThread { () -> (Int, String) in
                    let connection = try RawConnection(base)
                    var reply: [UInt8] = []
                    guard
                        connection.send(
                            "POST /api/items HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n")
                    else { return (0, "") }
                    let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x10000) + Array("\r\n".utf8)
                    var sent = 0
                    // At most 256 MiB: far more than socket buffers hold.
                    while sent < 256 << 20 {
                        guard connection.send(chunk) else { break }
                        sent += 0x10000
                        guard let more = connection.receiveAvailable() else { break }
                        reply += more
                    }
                    while let more = connection.receiveAvailable(), !more.isEmpty { reply += more }
                    return (sent, String(decoding: reply, as: UTF8.self))
                }
                #expect(sent < 64 << 20, "the server read \(sent) bytes of a body it refused")
                if !reply.isEmpty {
                    #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply.prefix(200))")
                    #expect(reply.lowercased().contains("connection: close"))
                }
                #expect(try await served.get("/api/items").json["count"] as? Int == 0)
            }
        }
    }
#endif
