#if Server
    import Foundation
    import ShelfTestSupport
    import Synchronization
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// SIGTERM while about 500 plain requests are in flight (issue 24, hostile tester: 6 of about
    /// 500 got the connection's end without a status line). Every request sent before the signal
    /// is answered, and every 201 stored what it said. (Before the fix, a connection whose request
    /// the server had not read yet was closed at once, and those still waiting to be accepted
    /// were reset when the listening socket closed.) Serialized: the two storms, run at once,
    /// would each slow the other past the server's 2 s drain of its accept queue.
    @Suite(.serialized) struct ShutdownStormTests {
        @Test func sigtermAnswersEveryRequestSentBeforeIt() async throws {
            try await ServedShelf.with { served in try await Self.storm(served) }
        }

        /// Connections that keep arriving while the server shuts down: one accepted as the
        /// listening socket closes could be dropped by NIO's accept sequence before the accept
        /// loop took it, and NIO then stopped the process ("Deinited NIOAsyncWriter without calling
        /// finish()", exit 132; swift-nio issue 2813). 1 or 2 of 10 rounds crashed by hand, so this
        /// runs several; each must exit 0 with no fatal error on stderr.
        @Test func connectionsArrivingDuringShutdownNeverCrashTheServer() async throws {
            for round in 1...6 {
                try await ServedShelf.with { served in
                    let port = try #require(URL(string: served.base)?.port)
                    let connected = await ConnectLoop.onThread(port: port, signalAfter: 150, for: .seconds(2)) {
                        served.deliver(SIGTERM)
                    }
                    let exited = await ServedShelf.poll { served.isRunning ? nil : true }
                    #expect(exited == true, "round \(round): the server is still running")
                    let status = served.exitStatus()
                    #expect(
                        status == 0,
                        "round \(round) (\(connected) connections): exit \(status), stderr ends: \(served.standardError.suffix(600))"
                    )
                    #expect(!served.standardError.contains("Fatal error"), "round \(round)")
                }
            }
        }

        static func storm(_ served: ServedShelf) async throws {
            let port = try #require(URL(string: served.base)?.port)
            let count = 500
            let requests = (0..<count).map { number in
                if number.isMultiple(of: 2) {
                    return Array("GET /api/items?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
                }
                let body = "{\"title\": \"storm \(number)\", \"user\": \"ann@example.com\"}"
                return Array(
                    ("POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8)
            }
            let outcomes = try await RequestStorm.onThread(port: port, requests: requests, limit: .seconds(120)) {
                served.deliver(SIGTERM)
            }
            let exited = await ServedShelf.poll { served.isRunning ? nil : true }
            #expect(exited == true, "the server is still running")
            #expect(served.exitStatus() == 0)

            var unanswered: [String] = []
            var created: [String] = []
            for (number, outcome) in outcomes.enumerated() {
                switch outcome {
                case .refused: break  // nothing was sent
                case .answered(let status):
                    if status == 201 { created.append("storm \(number)") }
                    #expect(
                        [200, 201, 503].contains(status), "request \(number) was answered \(status)")
                case .unanswered(let what): unanswered.append("request \(number): \(what)")
                }
            }
            #expect(
                unanswered.isEmpty,
                "\(unanswered.count) of \(count) requests got no status line: \(unanswered.prefix(10))")
            let stored = try await ChildProcess.sqlite3Output(served.databasePath, "SELECT title FROM items")
            let titles = Set(stored.split(separator: "\n").map(String.init))
            let lost = created.filter { !titles.contains($0) }
            #expect(lost.isEmpty, "answered 201 but not stored: \(lost)")
        }
    }

    /// Connections opened one after another, each sending a request and left open, for a time.
    enum ConnectLoop {
        /// On a thread of its own: connects to 127.0.0.1:`port` again and again for `duration`,
        /// each connection sending `GET /healthz`, and calls `signal` once `signalAfter` are
        /// connected (so later ones arrive while the server shuts down). Returns how many
        /// connected.
        static func onThread(
            port: Int, signalAfter: Int, for duration: Duration, signal: @escaping @Sendable () -> Void
        ) async -> Int {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: run(port: port, signalAfter: signalAfter, for: duration, signal: signal))
                }
            }
        }

        static func run(port: Int, signalAfter: Int, for duration: Duration, signal: () -> Void) -> Int {
            let end = ContinuousClock.now + duration
            var descriptors: [Int32] = []
            defer { for descriptor in descriptors { close(descriptor) } }
            let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            var connected = 0
            while ContinuousClock.now < end, descriptors.count < 4_000 {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard descriptor >= 0 else { break }
                descriptors.append(descriptor)
                // A connect to a full accept queue waits, for up to this long.
                var patience = timeval(tv_sec: 0, tv_usec: 200_000)
                setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
                let result = connectToLoopback(descriptor, port: port)
                guard result == 0 else { continue }
                connected += 1
                _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if connected == signalAfter { signal() }
            }
            return connected
        }
    }

    /// Many requests at once over plain sockets, each on a connection of its own, on one thread
    /// (`poll`): each connection sends its request as soon as it is connected and reads until
    /// the server closes it.
    enum RequestStorm {
        enum Outcome: Sendable {
            /// The connection was refused: nothing was sent.
            case refused
            /// A status line arrived.
            case answered(Int)
            /// The request was sent (or being sent) and the connection ended without a status line.
            case unanswered(String)
        }

        /// Runs `run` on a thread of its own.
        static func onThread(
            port: Int, requests: [[UInt8]], limit: Duration, whenAllSent: @escaping @Sendable () -> Void
        ) async throws -> [Outcome] {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        returning: run(port: port, requests: requests, limit: limit, whenAllSent: whenAllSent))
                }
            }
        }

        private enum Phase {
            case connecting
            case sending(Int)
            case reading
            case done
        }

        /// Connects one socket per request to 127.0.0.1:`port`, sends each its request, calls
        /// `whenAllSent` once every request is sent or refused, then reads until every connection
        /// ends or `limit` passes (what is still open then is `unanswered`). Blocks.
        static func run(port: Int, requests: [[UInt8]], limit: Duration, whenAllSent: () -> Void) -> [Outcome] {
            let end = ContinuousClock.now + limit
            var descriptors: [Int32] = []
            var phases: [Phase] = []
            var replies: [[UInt8]] = Array(repeating: [], count: requests.count)
            var failures: [String?] = Array(repeating: nil, count: requests.count)
            var outcomes: [Outcome?] = Array(repeating: nil, count: requests.count)
            defer { for descriptor in descriptors where descriptor >= 0 { close(descriptor) } }
            for index in requests.indices {
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                let result = connectToLoopback(descriptor, port: port)
                descriptors.append(descriptor)
                if descriptor < 0 || (result != 0 && errno != EINPROGRESS) {
                    phases.append(.done)
                    outcomes[index] = .refused
                } else {
                    phases.append(.connecting)
                }
            }
            var signalled = false
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while ContinuousClock.now < end {
                if !signalled,
                    phases.allSatisfy({
                        if case .connecting = $0 { false } else if case .sending = $0 { false } else { true }
                    })
                {
                    signalled = true
                    whenAllSent()
                }
                let open = phases.indices.filter { if case .done = phases[$0] { false } else { true } }
                if open.isEmpty { break }
                var polled = open.map { index -> pollfd in
                    let events: Int32
                    switch phases[index] {
                    case .connecting, .sending: events = Int32(POLLOUT)
                    default: events = Int32(POLLIN)
                    }
                    return pollfd(fd: descriptors[index], events: Int16(events), revents: 0)
                }
                if poll(&polled, nfds_t(polled.count), 100) <= 0 { continue }
                for (slot, index) in open.enumerated() where polled[slot].revents != 0 {
                    let descriptor = descriptors[index]
                    switch phases[index] {
                    case .connecting:
                        var error: Int32 = 0
                        var length = socklen_t(MemoryLayout<Int32>.size)
                        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
                        if error != 0 {
                            phases[index] = .done
                            outcomes[index] = .refused
                        } else {
                            phases[index] = .sending(0)
                        }
                    case .sending(let offset):
                        let request = requests[index]
                        let sent = request[offset...].withUnsafeBytes {
                            send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                        }
                        if sent < 0, errno == EAGAIN { continue }
                        if sent <= 0 {
                            failures[index] = "sending failed (errno \(errno))"
                            phases[index] = .done
                        } else {
                            phases[index] = offset + sent == request.count ? .reading : .sending(offset + sent)
                        }
                    case .reading:
                        let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                        if read > 0 {
                            replies[index] += buffer[0..<read]
                        } else if read < 0, errno == EAGAIN {
                            continue
                        } else {
                            if read < 0 { failures[index] = "reset (errno \(errno))" }
                            phases[index] = .done
                        }
                    case .done: break
                    }
                }
            }
            return requests.indices.map { index in
                if let outcome = outcomes[index] { return outcome }
                let reply = String(decoding: replies[index].prefix(12), as: UTF8.self)
                if reply.hasPrefix("HTTP/1."), let status = Int(reply.dropFirst(9).prefix(3)) {
                    return .answered(status)
                }
                if case .done = phases[index] {
                    return .unanswered(failures[index] ?? "the connection ended")
                }
                return .unanswered("nothing within \(limit)")
            }
        }
    }
#endif
