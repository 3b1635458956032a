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
                let started = ContinuousClock.now
                let (streamsCost, outcomes) = try await RawConnection.onThread { () -> (Int, [WindowRead]) in
                    let before = cpuTicks(of: pid) ?? 0
                    let outcomes = Mutex<[WindowRead]>([])
                    // Ten clients at once, each on a thread of its own (`concurrentPerform` ran two
                    // at a time, one per core: the streams came in pairs, and the first pair alone
                    // waited for the window's first read and encoding). HTTP/1.0: the events as
                    // they are, no chunks around them.
                    let done = DispatchGroup()
                    for _ in 0..<10 {
                        done.enter()
                        Thread.detachNewThread {
                            let outcome = readWindow(
                                base, "GET /api/items/live?limit=1000 HTTP/1.0\r\nHost: localhost\r\n\r\n")
                            outcomes.withLock { $0.append(outcome) }
                            done.leave()
                        }
                    }
                    done.wait()
                    return ((cpuTicks(of: pid) ?? 0) - before, outcomes.withLock { $0 })
                }
                let windows = outcomes.map(\.window)
                let report = outcomes.map { $0.description(since: started) }.joined(separator: "; ")
                #expect(windows.count == 10 && windows.allSatisfy { ($0 ?? 0) > 90_000_000 }, "\(report)")
                #expect(Set(windows).count == 1, "every stream got the same window: \(report)")
                print("streams: \(report)")
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

    /// How a client's read of its first window went, and when.
    struct WindowRead: Sendable {
        enum Ending: Sendable {
            /// The window arrived whole: the bytes read.
            case window(Int)
            /// The server closed the connection first, after this many bytes.
            case closed(Int)
            /// The deadline passed, after this many bytes.
            case deadline(Int)
            /// No connection: why.
            case unconnected(String)
        }

        let ending: Ending
        let start: ContinuousClock.Instant
        let end: ContinuousClock.Instant

        var window: Int? {
            if case .window(let bytes) = ending { bytes } else { nil }
        }

        func description(since origin: ContinuousClock.Instant) -> String {
            let times =
                "\((start - origin).formatted(.units(allowed: [.seconds])))–\((end - origin).formatted(.units(allowed: [.seconds])))"
            return "\(ending) \(times)"
        }
    }

    /// Connects, sends `request` (an HTTP/1.0 event stream) and reads until its first window has
    /// arrived whole (it ends with `}` and a blank line), the server closes, or 300 s pass.
    private func readWindow(_ base: String, _ request: String) -> WindowRead {
        let start = ContinuousClock.now
        let connection: RawConnection
        do {
            connection = try RawConnection(base)
        } catch {
            return WindowRead(ending: .unconnected("\(error)"), start: start, end: .now)
        }
        guard connection.send(request) else {
            return WindowRead(ending: .unconnected("the request could not be sent"), start: start, end: .now)
        }
        // The window's event ends at its first `}` and blank line: its JSON is one line, and a
        // blank line never occurs inside it. Other events may follow in the same read (a
        // keep-alive comment, when sending the window took longer than the keep-alive interval;
        // looking only at a read's last bytes then missed the window's end, and the client waited
        // until the deadline: the two streams "without their window" of a full CI run).
        let end = Array("}\n\n".utf8)
        var total = 0
        var carried: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            guard let more = connection.receiveAvailable() else {
                return WindowRead(ending: .closed(total), start: start, end: .now)
            }
            if more.isEmpty {
                usleep(2_000)
                continue
            }
            let scanned = carried + more
            if let found = firstIndex(of: end, in: scanned) {
                let through = total - carried.count + found + end.count
                return WindowRead(ending: .window(through), start: start, end: .now)
            }
            total += more.count
            carried = Array(scanned.suffix(end.count - 1))
        }
        return WindowRead(ending: .deadline(total), start: start, end: .now)
    }

    /// Where `pattern` first starts in `bytes`, or nil (`memchr` for its first byte: the reads
    /// scan 90 MB each, which a loop over the bytes in a debug build takes seconds to).
    private func firstIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { haystack -> Int? in
            guard let base = haystack.baseAddress, let first = pattern.first else { return nil }
            var offset = 0
            while offset + pattern.count <= haystack.count {
                guard let found = memchr(base + offset, Int32(first), haystack.count - offset) else { return nil }
                let index = base.distance(to: UnsafeRawPointer(found))
                guard index + pattern.count <= haystack.count else { return nil }
                if haystack[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
                offset = index + 1
            }
            return nil
        }
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
