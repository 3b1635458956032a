#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// The send timeout ends a stream whose client takes nothing, not one whose client reads
    /// slowly. Hostile round 14: a change-stream client reading steadily at 80 KB/s was cut off
    /// after `--send-timeout` (3 s, and 43 s with the default 30), in the middle of an event,
    /// as the socket's buffers (megabytes on loopback) stayed too full for the channel to become
    /// writable within the timeout however steadily they drained.
    @Suite(.serialized) struct SteadyReaderTests {
        @Test func aChangeStreamReadSlowlyButSteadilyIsNotCutOff() async throws {
            try await ServedShelf.with(arguments: ["--send-timeout", "1"]) { served in
                // About 12 MB of changes: 40 items of 300 KB notes.
                let notes = String(repeating: "moth ", count: 60_000)
                for index in 0..<40 {
                    let added = try await served.send(
                        .POST, "/api/items",
                        json: #"{"title": "n\#(index)", "user": "ann@example.com", "notes": "\#(notes)"}"#)
                    #expect(added.status == 201)
                }
                let base = served.base
                // 16 KB every 100 ms (160 KB/s) through an 8 KB receive buffer, for 5 s: the
                // client never pauses for anything near the 1 s timeout.
                let (received, cut, gauge) = try await RawConnection.onThread { () -> (Int, Bool, String) in
                    let connection = try RawConnection(base)
                    var size: Int32 = 8192
                    setsockopt(connection.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                    _ = connection.send("GET /api/changes?after=0 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    var total = 0
                    let end = ContinuousClock.now + .seconds(5)
                    while ContinuousClock.now < end {
                        usleep(100_000)
                        var buffer = [UInt8](repeating: 0, count: 16_384)
                        let count = buffer.withUnsafeMutableBytes {
                            recv(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                        }
                        if count == 0 { return (total, true, "") }
                        if count > 0 { total += count }
                    }
                    // Asked while the client is still there: a closed stream's last megabytes
                    // still reach it from the kernel's buffers for a long while.
                    let metrics = try RawConnection(base)
                    _ = metrics.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    let text = metrics.receive(within: .seconds(30)).text
                    let line = text.split(separator: "\n").first { $0.hasPrefix("shelf_change_streams ") }
                    withExtendedLifetime(connection) {}
                    return (total, false, line.map(String.init) ?? text)
                }
                #expect(!cut, "the stream was closed after \(received) bytes while its client read steadily")
                // More than its receive buffer holds: it took data all along (197 KB at load 40).
                #expect(received > 64 << 10, "the client got \(received) bytes in 5 s")
                // Before: 0 (closed at about 2 s).
                #expect(gauge == "shelf_change_streams 1.0", "\(gauge)")
            }
        }

        /// A client that takes nothing is closed about `--send-timeout` after it stopped, not
        /// twice that (hostile round 15: 10.0-12.5 s with a timeout of 5, as the one look per
        /// timeout started over whenever the kernel had still delivered bytes in the period).
        @Test func aClientThatTakesNothingIsClosedAfterTheTimeoutNotTwice() async throws {
            try await ServedShelf.with(arguments: ["--send-timeout", "10"]) { served in
                // Windows of about 300 KB: the first fills the connection's buffers.
                let notes = String(repeating: "moth ", count: 60_000)
                let added = try await served.send(
                    .POST, "/api/items", json: #"{"title": "big", "user": "ann@example.com", "notes": "\#(notes)"}"#)
                #expect(added.status == 201)
                let base = served.base
                let start = ContinuousClock.now
                let silent = try await RawConnection.onThread { () -> RawConnection in
                    let connection = try RawConnection(base)
                    var size: Int32 = 4096
                    setsockopt(connection.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                    _ = connection.send("GET /api/items/live?limit=10 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    return connection
                }
                // Windows enough to fill the buffers between them: then nothing is taken.
                let id = try #require(added.json["id"] as? Int)
                for version in 1...15 {
                    let changed = try await served.send(
                        .PATCH, "/api/items/\(id)", json: #"{"title": "v\#(version)"}"#, headers: [("If-Match", "*")])
                    #expect(changed.status == 200)
                }
                let filled = ContinuousClock.now
                var open = true
                while open, ContinuousClock.now - start < .seconds(90) {
                    try await Task.sleep(for: .milliseconds(250))
                    open = try await served.get("/metrics").body.contains("shelf_live_streams 1")
                }
                let took = ContinuousClock.now - filled
                withExtendedLifetime(silent) {}
                #expect(!open, "still open after 90 s")
                // At most 10 s and a quarter after the buffers filled (during the changes);
                // twice the timeout before. 15 s leaves a loaded machine some margin.
                #expect(took < .seconds(15), "closed \(took) after the last change")
            }
        }
    }
#endif
