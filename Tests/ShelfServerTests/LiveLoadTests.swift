#if Server
    import Foundation
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// Many live streams of big windows (hostile tester: thirty streams of a 1,000-item window
    /// with about 900 KB of notes per item made `/healthz` time out for minutes, even after the
    /// clients had gone, and SIGTERM take 47 s: every stream encoded the window for itself, on
    /// the threads tasks share, and went on after its client left).
    @Suite(.serialized) struct LiveLoadTests {
        /// 100 items of about 900 KB of notes each: a window of about 90 MB.
        static let bigItems = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
            INSERT INTO items (user_id, title, notes, created_at, updated_at)
            SELECT 1, 'Item ' || i, replace(printf('%.*c', 180000, 'x'), 'x', 'moth '),
                   1700000000000 + i, 1700000000000 + i FROM n
            """

        /// Ten streams of one query cost the server about one encoding of their window, not
        /// ten: measured in the server's CPU time against one `GET /api/items` of the same
        /// items (which encodes them once), so a loaded machine does not change the verdict.
        @Test func tenStreamsOfOneBigWindowCostAboutOneEncoding() async throws {
            let seed: (ServedShelfCLI) throws -> Void = { cli in
                let status = try ChildProcessRunner.sqlite3(cli.databasePath, Self.bigItems)
                guard status == 0 else { throw ShellError(message: "sqlite3 exited with \(status)") }
            }
            try await ServedShelf.with(arguments: ["--send-timeout", "600", "--idle-timeout", "600"], prepare: seed) {
                served in
                let base = served.base
                let pid = served.pid
                let (listCost, listed) = try await RawConnection.onThread { () -> (Int, Int) in
                    let before = cpuTicks(of: pid) ?? 0
                    let connection = try RawConnection(base)
                    _ = connection.send("GET /api/items?limit=1000 HTTP/1.0\r\nHost: localhost\r\n\r\n")
                    let bytes = readUntilClosed(connection)
                    return ((cpuTicks(of: pid) ?? 0) - before, bytes)
                }
                #expect(listed > 90_000_000, "the list: \(listed) bytes")
                let (streamsCost, windows) = try await RawConnection.onThread { () -> (Int, [Int?]) in
                    let before = cpuTicks(of: pid) ?? 0
                    let windows = Mutex<[Int?]>([])
                    // HTTP/1.0: the events as they are, no chunks around them.
                    DispatchQueue.concurrentPerform(iterations: 10) { _ in
                        let size = (try? RawConnection(base)).flatMap { connection -> Int? in
                            _ = connection.send("GET /api/items/live?limit=1000 HTTP/1.0\r\nHost: localhost\r\n\r\n")
                            return readWindow(connection)
                        }
                        windows.withLock { $0.append(size) }
                    }
                    return ((cpuTicks(of: pid) ?? 0) - before, windows.withLock { $0 })
                }
                #expect(windows.count == 10 && windows.allSatisfy { ($0 ?? 0) > 90_000_000 }, "\(windows)")
                #expect(Set(windows).count == 1, "every stream got the same window: \(windows)")
                // Four list encodings' worth, for the sending and the reads; ten streams each
                // encoding for itself took about ten.
                #expect(
                    streamsCost < 4 * max(listCost, 1),
                    "10 streams cost \(streamsCost) CPU ticks, one list of the same items \(listCost)")
                // The clients have gone: their streams end, and the server answers.
                var open = try await SlowClientTests.openStreams(served)
                for _ in 0..<120 where open != 0 {
                    try await Task.sleep(for: .milliseconds(500))
                    open = try await SlowClientTests.openStreams(served)
                }
                #expect(open == 0, "streams of clients that left: \(open ?? -1)")
                #expect(try await served.curl("/healthz", ["-m", "60"]).status == 200)
            }
        }
    }

    /// Reads until the server closes; the bytes read.
    private func readUntilClosed(_ connection: RawConnection) -> Int {
        var total = 0
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline, let more = connection.receiveAvailable() {
            if more.isEmpty { usleep(2_000) }
            total += more.count
        }
        return total
    }

    /// Reads an HTTP/1.0 event stream until its first window has arrived whole (it ends with
    /// `}` and a blank line); the bytes read, or nil when the server closed first.
    private func readWindow(_ connection: RawConnection) -> Int? {
        var total = 0
        var tail: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            guard let more = connection.receiveAvailable() else { return nil }
            if more.isEmpty {
                usleep(2_000)
                continue
            }
            total += more.count
            tail = Array((tail + more.suffix(3)).suffix(3))
            if tail == Array("}\n\n".utf8) { return total }
        }
        return nil
    }

    /// The CPU time process `pid` has used (user and system), in clock ticks (Linux).
    private func cpuTicks(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the name: state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
#endif
