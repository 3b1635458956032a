#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// What a connection may hold: headers that never end, connections that send nothing, a body
    /// over the limit (hostile tester: each kept a connection, or the server reading, forever).
    @Suite(.serialized) struct ConnectionLimitTests {
        /// A client that sends header lines slowly and never ends them is answered 408 after the
        /// header timeout, and the connection closes (it was kept as long as it sent something:
        /// the idle timeout never came). Before stop 17 it was closed without a word.
        @Test func headersThatNeverEndAreAnswered408() async throws {
            try await ServedShelf.with(arguments: ["--header-timeout", "1"]) { served in
                let base = served.base
                let (answer, lines) = try await RawConnection.onThread { () -> (String?, Int) in
                    let connection = try RawConnection(base)
                    guard connection.send("GET /api/items HTTP/1.1\r\nHost: localhost\r\n") else { return (nil, 0) }
                    // One short line every 250 ms for at most 20 s: fewer lines than the decoder's
                    // field limit, never idle long enough for the idle timeout.
                    for line in 0..<80 {
                        usleep(250_000)
                        guard let arrived = connection.receiveAvailable() else { return ("", line) }
                        if !arrived.isEmpty {
                            let rest = connection.receive(within: .seconds(10)) { $0.hasSuffix("}") }
                            return (String(decoding: arrived, as: UTF8.self) + rest.text, line)
                        }
                        if !connection.send("X-Slow-\(line): a\r\n") { return (nil, line) }
                    }
                    return (nil, 80)
                }
                let text = try #require(answer, "no answer after \(lines) lines")
                #expect(text.hasPrefix("HTTP/1.1 408 "), "\(text)")
                #expect(text.lowercased().contains("connection: close"), "\(text)")
                #expect(text.contains("application/problem+json"), "\(text)")
                #expect(
                    text.contains("did not arrive whole within 1 s (--header-timeout)")
                        && text.contains("send the whole request again"), "\(text)")
                #expect(lines < 40, "answered only after \(lines) lines")
                #expect(try await served.curl("/healthz").status == 200)
                // Logged and counted as a route's answer is (before stop 17, neither).
                let metrics = try await served.get("/metrics").body
                #expect(
                    metrics.contains(#"shelf_http_requests_total{route="(connection)",method="-",status="408"} 1"#),
                    "\(metrics)")
                let logged = await ServedShelf.poll { [served] in
                    served.standardError.contains("route=(connection) [ShelfServer] - - 408") ? true : nil
                }
                #expect(logged == true, "the access log: \(served.standardError)")
            }
        }

        /// A body trickled a byte every 250 ms (hostile tester: one every 5 s held its connection
        /// and a handler task for as long as it went on) is answered 408 after the body timeout
        /// and the connection closes; what had arrived, a whole JSON object already, is not stored.
        @Test func aBodyThatTricklesIsCutOffWith408() async throws {
            // The idle timeout far away: only the body timeout may end it within the trickle.
            try await ServedShelf.with(arguments: ["--body-timeout", "2", "--idle-timeout", "600"]) { served in
                let base = served.base
                let (closed, sent, reply) = try await RawConnection.onThread { () -> (Bool, Int, String) in
                    let connection = try RawConnection(base)
                    let object = #"{"title": "half", "user": "ann@example.com"}"#
                    var reply: [UInt8] = []
                    guard
                        connection.send(
                            "POST /api/items HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(object.utf8.count + 200)\r\n\r\n\(object)")
                    else { return (true, 0, "") }
                    // One space every 250 ms for at most 20 s, never 200 of them: the body never ends.
                    for sent in 0..<80 {
                        usleep(250_000)
                        guard let more = connection.receiveAvailable() else {
                            return (true, sent, String(decoding: reply, as: UTF8.self))
                        }
                        reply += more
                        if !connection.send(" ") { return (true, sent, String(decoding: reply, as: UTF8.self)) }
                    }
                    return (false, 80, String(decoding: reply, as: UTF8.self))
                }
                #expect(closed, "the connection was still open after 20 s of body")
                #expect(sent < 40, "closed only after \(sent) bytes of body")
                #expect(reply.hasPrefix("HTTP/1.1 408"), "\(reply.prefix(300))")
                #expect(reply.lowercased().contains("connection: close"))
                #expect(reply.contains("application/problem+json"))
                // The handler ended (its access-log line), with nothing stored.
                let logged = await ServedShelf.poll {
                    served.standardError.contains("POST /api/items 408") ? true : nil
                }
                #expect(logged == true, "the handler's request never ended: \(served.standardError)")
                #expect(try await served.get("/api/items").json["count"] as? Int == 0, "half a request was stored")
                #expect(try await served.curl("/healthz").status == 200)
            }
        }

        /// Connections that never send a request are closed after the header timeout, and
        /// while they are open the server answers and its memory stays bounded.
        @Test func connectionsThatSendNothingAreClosed() async throws {
            // The idle timeout far away: only the header timeout may close them within the poll.
            try await ServedShelf.with(arguments: ["--header-timeout", "2", "--idle-timeout", "600"]) { served in
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
                // Closed without a word: nothing was asked, so nothing is answered (no 408).
                #expect(connections.allSatisfy { $0.receiveAvailable() == nil })
                // On a new connection: the client's pooled one was idle past the header timeout too.
                #expect(try await served.curl("/healthz").status == 200)
            }
        }

        /// 10,000 connections open at once that send nothing (issue 24's hostile input): the
        /// server accepts them all, answers requests and a live stream beside them, its memory
        /// stays bounded, and once the clients vanish it holds none of them.
        @Test func tenThousandIdleConnectionsLeaveTheServerAnswering() async throws {
            try await ServedShelf.with(arguments: ["--header-timeout", "600", "--idle-timeout", "600"]) { served in
                let base = served.base
                let count = 10_000
                let openFiles: @Sendable () -> Int = {
                    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(served.pid)/fd").count) ?? 0
                }
                let filesBefore = openFiles()
                let before = residentBytes(of: served.pid) ?? 0
                let connections = try await RawConnection.onThread {
                    try (0..<count).map { _ in try RawConnection(base) }
                }
                // Accepted, not only queued: the server holds a descriptor for each.
                let accepted = await ServedShelf.poll { openFiles() >= filesBefore + count ? true : nil }
                #expect(accepted == true, "the server holds \(openFiles() - filesBefore) of \(count) connections")
                #expect(try await served.get("/api/items").status == 200, "the server answers beside them")
                let stream = try await EventStream(served, "/api/items/live?limit=1")
                #expect(try await stream.next()?.event == "window")
                let during = residentBytes(of: served.pid) ?? 0
                #expect(during - before < 256 << 20, "\(count) idle connections cost \(during - before) bytes")
                #expect(connections.allSatisfy { !$0.isClosedByServer })
                // The clients vanish (their sockets close with the array): the server lets go of them all.
                _ = consume connections
                let released = await ServedShelf.poll { openFiles() < filesBefore + 100 ? true : nil }
                #expect(released == true, "the server still holds \(openFiles() - filesBefore) descriptors")
                #expect(try await served.curl("/healthz").status == 200)
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

#if Server
    import NIOHTTP1

    /// Clients of live streams that do not read (hostile tester: 80 of them grew the server to
    /// about 1 GB and stalled its writes).
    @Suite(.serialized) struct SlowClientTests {
        /// The open live streams `/metrics` counts.
        static func openStreams(_ served: ServedShelf) async throws -> Int? {
            let text = try await served.get("/metrics").body
            return text.split(separator: "\n").first { $0.hasPrefix("shelf_live_streams ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
        }

        @Test func clientsThatDoNotReadAreClosedAndHoldLittle() async throws {
            try await ServedShelf.with(arguments: ["--send-timeout", "2"]) { served in
                // Windows of about 300 KB each: a few of them fill a connection's buffers.
                let notes = String(repeating: "moth ", count: 60_000)
                let added = try await served.send(
                    .POST, "/api/items", json: #"{"title": "v0", "user": "ann@example.com", "notes": "\#(notes)"}"#)
                let id = try #require(added.json["id"] as? Int)
                let base = served.base
                let slow = try await RawConnection.onThread {
                    try (0..<10).map { _ in
                        let connection = try RawConnection(base)
                        _ = connection.send("GET /api/items/live?limit=10 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        return connection
                    }
                }
                let reader = try await EventStream(served, "/api/items/live?limit=10")
                _ = try await reader.next()
                let before = residentBytes(of: served.pid) ?? 0
                for version in 1...15 {
                    let changed = try await served.send(
                        .PATCH, "/api/items/\(id)", json: #"{"title": "v\#(version)"}"#, headers: [("If-Match", "*")])
                    #expect(changed.status == 200)
                    // The reading client gets every change while the others do not read.
                    let seen = try await reader.next {
                        (($0.json["items"] as? [[String: Any]])?.first?["title"] as? String) == "v\(version)"
                    }
                    #expect(seen != nil, "the reading client missed v\(version)")
                }
                let grown = (residentBytes(of: served.pid) ?? 0) - before
                #expect(grown < 256 << 20, "10 clients that do not read grew the server by \(grown) bytes")
                // Their streams end once they have taken nothing for the send timeout.
                var open = try await Self.openStreams(served)
                for _ in 0..<120 where open != 1 {
                    try await Task.sleep(for: .milliseconds(500))
                    open = try await Self.openStreams(served)
                }
                #expect(open == 1, "open live streams: \(open ?? -1), the reading one alone should be left")
                withExtendedLifetime(slow) {}
            }
        }
    }
#endif
