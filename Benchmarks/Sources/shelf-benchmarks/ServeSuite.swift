import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ShelfPostgres
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `shelf-benchmarks serve`: the release `shelf serve` on loopback (issue 24's "Measure").
///
/// - `serve.items_page_rps`: `wrk` on `GET /api/items?limit=50` against a Hummingbird route in
///   this process that answers the same bytes from memory (the floor of the HTTP stack); target
///   ratio >= 0.5. SQLite only (PostgreSQL keeps no pages: its sequences commit out of order).
/// - `serve.BACKEND.SHAPE.*`, for SHAPE `owners` (`--clients` live streams, default 10,000: 100
///   owners, each client watching its owner's open items, 100 distinct queries) and `shared`
///   (the same, with `--shared` of them, default 1,000, watching every item: one query shared),
///   while `--rate` commits a second (20) are spread over the owners for `--seconds` (60), and
///   `--reconnects` (1,000) random clients drop their connection at random moments and resume
///   with `Last-Event-ID`: from the commit being sent to each watching client reading the window
///   that holds it, p99 (target <= 100 ms); deliveries missed (a commit a client should have
///   seen and never did: 0); ids that did not increase (0); clients whose last window differs
///   from a fresh `GET /api/items` of its query 2 s after the last commit (0); the servers' peak
///   RSS (<= 1 GiB) and CPU; the load generator's own CPU, so the server's share is clear.
/// - On PostgreSQL (`--backend postgres --postgres URL`, a scratch database on that server), two
///   `shelf serve` instances on the one database: the clients alternate between them, the
///   writes go through the first, and `cross_instance_p99_ms` is the p99 of the clients of the
///   second (target <= 100 ms).
///
/// Every loop is bounded in count and time; connections are loopback only.
struct ServeSuite {
    let shelfPath: String
    let clients: Int
    let seconds: Int
    let rate: Int
    /// `wrk` runs of each side for the page figure (medians compared).
    let runs: Int
    /// Clients of the `shared` run that watch every item.
    let shared: Int
    /// Random disconnects and reconnects during each live run.
    let reconnects: Int
    /// The server to run on (a scratch database of it), or nil for SQLite.
    let postgres: PostgresBenchServer?
    let report: Report

    func run() async throws {
        report.note("serve: machine \(PostgresBaseline.machineLoad())")
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        if postgres == nil {
            let database = folder.appendingPathComponent("serve.sqlite").path
            let store = try Store(path: database)
            try await Self.seed(store, owners: 100, itemsPerOwner: 20)
            await store.close()
            let server = try ServeProcess(shelf: shelfPath, database: database, folder: folder, name: "page")
            defer { server.stop() }
            try await itemsPage(server)
        }
        // `--clients 0`: the page figure alone.
        guard clients > 0 else { return }
        for (shape, everything) in [("owners", 0), ("shared", min(shared, clients))] {
            try await withDatabase(folder: folder, name: shape) { location in
                var servers: [ServeProcess] = []
                defer { for server in servers { server.stop() } }
                for instance in 0..<(postgres == nil ? 1 : 2) {
                    servers.append(
                        try ServeProcess(
                            shelf: shelfPath, database: location, folder: folder, name: "\(shape)-\(instance)"))
                }
                try await live(
                    "serve.\(postgres == nil ? "sqlite" : "postgres").\(shape)", servers: servers,
                    everything: everything)
            }
        }
    }

    /// Runs `body` with a freshly seeded database's location: a SQLite file in `folder`, or a
    /// scratch database on `postgres`, dropped afterwards.
    private func withDatabase(folder: URL, name: String, _ body: (String) async throws -> Void) async throws {
        guard let postgres else {
            let path = folder.appendingPathComponent("\(name).sqlite").path
            let store = try Store(path: path)
            try await Self.seed(store, owners: 100, itemsPerOwner: 20)
            await store.close()
            try await body(path)
            return
        }
        let scratch = try await postgres.createScratch()
        do {
            let store = try await Store.open(postgres: scratch.url)
            try await Self.seed(store, owners: 100, itemsPerOwner: 20)
            await store.close()
            try await body(scratch.url)
            await postgres.drop(scratch)
        } catch {
            await postgres.drop(scratch)
            throw error
        }
    }

    /// 100 owners `o001@bench.example` …, each with `itemsPerOwner` open items.
    static func seed(_ store: Store, owners: Int, itemsPerOwner: Int) async throws {
        let ids = try await store.users.insert(
            contentsOf: (1...owners).map { NewUser(name: "Owner \($0)", email: Self.email($0)) })
        var items: [NewItem] = []
        for (index, id) in ids.enumerated() {
            for number in 0..<itemsPerOwner {
                items.append(NewItem(userID: id, title: "seed \(index + 1).\(number)", notes: "a few words of notes"))
            }
        }
        try await store.items.insert(contentsOf: items)
    }

    static func email(_ owner: Int) -> String { String(format: "o%03d@bench.example", owner) }

    // MARK: wrk

    private func itemsPage(_ server: ServeProcess) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            report.note("serve.items_page_rps: skipped, /usr/bin/wrk is missing (apt-get install wrk)")
            return
        }
        let path = "/api/items?limit=50"
        let bytes = try Self.curl(server.base + path)
        let router = Router()
        router.get("api/items") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        let port = Mutex(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port ?? 0 } })
        let running = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { running.cancel() }
        while port.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        let baselineBase = "http://127.0.0.1:\(port.withLock { $0 })"
        // Alternated, so that what else the machine does falls on both alike; medians compared.
        var shelf: [Double] = []
        var baseline: [Double] = []
        for _ in 0..<max(1, runs) {
            shelf.append(try Self.wrk(server.base + path))
            baseline.append(try Self.wrk(baselineBase + path))
        }
        report.note(
            "serve.items_page_rps samples: shelf \(shelf.map { String(Int($0)) }.joined(separator: ", ")); "
                + "baseline \(baseline.map { String(Int($0)) }.joined(separator: ", "))")
        report.compare(
            "serve.items_page_rps", unit: "req/s", shelf: shelf,
            against: [("hummingbird_bytes_from_memory", baseline, ">= 0.5")])
    }

    /// Requests per second `wrk` reaches on `url` (2 threads, 50 connections, 10 s).
    /// The body `curl` reads from `url` (Foundation on Linux reads no http URL).
    static func curl(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sf", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let body = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !body.isEmpty else { throw BenchError("curl \(url) failed") }
        return body
    }

    static func wrk(_ url: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = ["-t2", "-c50", "-d10s", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let value = Double(line.split(separator: " ").last ?? "")
        else { throw BenchError("wrk printed no Requests/sec: \(output)") }
        return value
    }

    // MARK: live streams

    /// One live run: `clients` streams over `servers` (alternating), the first `everything` of
    /// them watching every item, the rest their owner's open items; commits through the first
    /// server; `reconnects` random drops and resumptions; then the checks against fresh reads.
    private func live(_ prefix: String, servers: [ServeProcess], everything: Int) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let clock = ContinuousClock()
        let start = clock.now
        let commits = CommitLog()
        var streams: [LiveClient] = []
        streams.reserveCapacity(clients)
        // Bounded in count (`clients`) and time (a connection refused or stuck fails the run).
        let openDeadline = clock.now + .seconds(300)
        for index in 0..<clients {
            guard clock.now < openDeadline else {
                throw BenchError("\(prefix): only \(index) of \(clients) streams opened in 300 s")
            }
            let server = servers[index % servers.count]
            let client = LiveClient(
                owner: index < everything ? nil : index % 100 + 1, port: server.port, server: index % servers.count,
                commits: commits, clock: clock, start: start)
            try await client.connect(group: group)
            streams.append(client)
        }
        // Every stream's first window, within a bounded wait.
        while clock.now < openDeadline, streams.contains(where: { $0.state.withLock { $0.windows == 0 } }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let opened = streams.filter { $0.state.withLock { $0.windows > 0 } }.count
        let openSeconds = (clock.now - start).seconds
        report.note(
            "\(prefix): \(opened) of \(clients) live streams open with a window in \(Int(openSeconds)) s "
                + "(\(everything) watching every item) on \(servers.count) server(s); \(rate) commits/s for "
                + "\(seconds) s, \(reconnects) random reconnects; \(PostgresBaseline.machineLoad())")
        let generatorBefore = Self.cpuSeconds()
        let serversBefore = servers.map { processCPUSeconds($0.process.processIdentifier) }
        let runStart = clock.now
        let deadline = runStart + .seconds(seconds)
        let peak = Mutex(servers.map { $0.residentBytes() })
        // The drops: `reconnects` moments spread at random over the run, each a random client.
        let moments = (0..<reconnects).map { _ in Double.random(in: 0..<Double(seconds)) }.sorted()
        let tally = ReconnectTally()
        let everyone = streams
        async let drops: Void = {
            for moment in moments {
                let at = runStart + .milliseconds(Int(moment * 1000))
                guard at < deadline else { break }
                if at > clock.now { try? await Task.sleep(until: at, clock: clock) }
                guard let client = everyone.randomElement() else { break }
                do {
                    try await client.reconnect(group: group)
                    tally.done.withLock { $0 += 1 }
                } catch {
                    tally.failures.withLock { $0.append("\(error)") }
                }
            }
        }()
        var sequence = 0
        let writer = try WriterConnection(port: servers[0].port)
        while clock.now < deadline, sequence < rate * seconds {
            sequence += 1
            let owner = sequence % 100 + 1
            commits.record(sequence, owner: owner, at: clock.now - start)
            try writer.post(#"{"title": "t\#(sequence)", "user": "\#(Self.email(owner))"}"#)
            let sizes = servers.map { $0.residentBytes() }
            peak.withLock { peak in peak = zip(peak, sizes).map { max($0, $1) } }
            let next = runStart + .milliseconds(sequence * 1000 / rate)
            if next > clock.now { try await Task.sleep(until: next, clock: clock) }
        }
        await drops
        let wall = (clock.now - runStart).seconds
        try await Task.sleep(for: .seconds(2))
        let generatorCPU = Self.cpuSeconds() - generatorBefore
        let serverCPU = zip(servers, serversBefore).map { processCPUSeconds($0.process.processIdentifier) - $1 }

        // Fresh reads of every distinct query, through the first server.
        var fresh: [Int?: WindowContent] = [:]
        for owner in [nil] + (1...100).map({ Optional($0) }) where everything > 0 || owner != nil {
            let body = try writer.get("/api/items?" + LiveClient.query(owner: owner))
            guard let content = WindowContent(json: body) else {
                throw BenchError("\(prefix): a fresh read of \(LiveClient.query(owner: owner)) is not a page")
            }
            fresh[owner] = content
        }
        let all = commits.all()
        var byOwner: [Int: [Int]] = [:]
        for (sequence, commit) in all { byOwner[commit.owner, default: []].append(sequence) }
        var stale = 0
        var missedOwners = 0
        var missedEverything = 0
        var repeated = 0
        var bad: [String] = []
        var refused = 0
        var latencies: [Double] = []
        var crossInstance: [Double] = []
        var delivered = 0
        var expected = 0
        var coalesced = 0
        for client in streams {
            client.close()
            let state = client.state.withLock { $0 }
            let refusals = state.refusals
            refused += refusals.count
            if let first = refusals.first { bad.append(first) }
            repeated += state.repeatedIDs
            latencies += state.latencies
            if client.server > 0 { crossInstance += state.latencies }
            delivered += state.seen.count
            if state.lastWindow.flatMap({ WindowContent(json: $0) }) != fresh[client.owner] { stale += 1 }
            // Commits in the client's query, in order. One it never saw is lost unless ten later
            // ones of the query reached it: its window holds the ten newest, and windows coalesce
            // to the newest for a client that reads slower than they change (the contract), so
            // such a commit was pushed out before the client read again, not lost.
            let mine = (client.owner.map { byOwner[$0] ?? [] } ?? Array(all.keys)).sorted()
            expected += mine.count
            let newestSeen = mine.lastIndex { state.seen[$0] != nil } ?? -1
            var missed = 0
            for (position, sequence) in mine.enumerated() where state.seen[sequence] == nil {
                if newestSeen >= position + Self.windowLimit { coalesced += 1 } else { missed += 1 }
            }
            if client.owner == nil { missedEverything += missed } else { missedOwners += missed }
        }
        if !bad.isEmpty {
            report.note("\(prefix): \(refused) stream requests of \(bad.count) clients were refused, first: \(bad[0])")
        }
        let failures = tally.failures.withLock { $0 }
        if !failures.isEmpty {
            report.note("\(prefix): \(failures.count) reconnects failed, first: \(failures[0])")
        }
        func figure(_ name: String, _ unit: String, _ value: Double, _ target: String = "") {
            report.print(Figure(name: "\(prefix).\(name)", unit: unit, value: value, target: target))
        }
        figure("live_p99_ms", "ms", latencies.isEmpty ? .infinity : percentile(latencies, 99), "<= 100")
        figure("live_p50_ms", "ms", latencies.isEmpty ? .infinity : percentile(latencies, 50))
        if servers.count > 1 {
            figure(
                "cross_instance_p99_ms", "ms", crossInstance.isEmpty ? .infinity : percentile(crossInstance, 99),
                "<= 100")
        }
        figure("commits", "commits", Double(sequence), "\(rate * seconds)")
        figure("delivered", "deliveries", Double(delivered), "= \(expected)")
        figure("missed_owner_windows", "deliveries", Double(missedOwners), "0")
        if everything > 0 { figure("missed_shared_windows", "deliveries", Double(missedEverything), "0") }
        figure("coalesced_away", "deliveries", Double(coalesced))
        figure("ids_repeated", "events", Double(repeated), "0")
        figure("refused_streams", "requests", Double(refused), "0")
        figure("last_window_stale", "clients", Double(stale), "0 of \(clients)")
        figure("reconnects", "reconnects", Double(tally.done.withLock { $0 }), "\(reconnects)")
        figure("open_seconds", "s", openSeconds)
        for (index, bytes) in peak.withLock({ $0 }).enumerated() {
            figure("peak_rss_mib.server\(index)", "MiB", Double(bytes) / 1_048_576, "<= 1024")
        }
        for (index, cpu) in serverCPU.enumerated() {
            figure("server_cpu_cores.server\(index)", "cores", cpu / (wall + 2))
        }
        figure("load_generator_cpu_cores", "cores", generatorCPU / (wall + 2), "of \(Self.cores) cores")
    }

    static let cores = ProcessInfo.processInfo.activeProcessorCount
    /// The clients' `limit`.
    static let windowLimit = 10

    /// User and system CPU of this process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// The reconnections a live run made, and those that failed.
final class ReconnectTally: Sendable {
    let done = Mutex(0)
    let failures = Mutex<[String]>([])
}

/// A `shelf serve` process on a port it picked.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: `process` is only started, read and stopped by the suite's one task.
    let process = Process()
    let base: String
    let port: Int

    /// Starts `shelf serve --db database --port 0`; `name` names its output file in `folder`.
    init(shelf: String, database: String, folder: URL, name: String) throws {
        let output = folder.appendingPathComponent("serve-\(name).out")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path])
        }
        process.executableURL = URL(fileURLWithPath: shelf)
        process.arguments = ["serve", "--db", database, "--port", "0"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var line = ""
        while Date() < deadline {
            line = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if line.hasSuffix("\n") { break }
            usleep(50_000)
        }
        guard line.hasPrefix("listening on http://"),
            let port = Int(line.trimmingCharacters(in: .newlines).split(separator: ":").last ?? "")
        else { throw BenchError("shelf serve did not start: \(line)") }
        base = line.trimmingCharacters(in: .newlines).replacingOccurrences(of: "listening on ", with: "")
        self.port = port
    }

    func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return (line?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A blocking keep-alive HTTP/1.1 connection that posts JSON and reads each answer whole.
final class WriterConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw BenchError("cannot connect to port \(port)") }
        // Every read is bounded in time: an answer that does not come in 30 s fails the run.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Posts `json` to `/api/items`; anything but a 201 throws.
    func post(_ json: String) throws {
        let body = Array(json.utf8)
        let request =
            Array(
                "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8) + body
        let (status, _) = try exchange(request)
        guard status.hasPrefix("HTTP/1.1 201") else { throw BenchError("a commit failed: \(status)") }
    }

    /// The body of `GET path`; anything but a 200 throws.
    func get(_ path: String) throws -> [UInt8] {
        let (status, body) = try exchange(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        guard status.hasPrefix("HTTP/1.1 200") else { throw BenchError("GET \(path): \(status)") }
        return body
    }

    /// Sends `request` and reads its answer whole (headers, then Content-Length bytes): the
    /// status line and the body.
    private func exchange(_ request: [UInt8]) throws -> (String, [UInt8]) {
        guard
            request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count
        else { throw BenchError("the writer's connection closed") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // Bounded: each recv waits at most 30 s (SO_RCVTIMEO), and an answer is at most what the server sends.
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw BenchError("the server did not answer within 30 s (a commit or a fresh read)")
            }
            guard count > 0 else { throw BenchError("the writer's connection closed") }
            received += buffer[0..<count]
            guard let end = LiveClient.find([13, 10, 13, 10], in: received, from: 0) else { continue }
            let head = String(decoding: received[0..<end], as: UTF8.self)
            let length =
                head.split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
            if received.count - (end + 4) >= length {
                let status = String(head.split(separator: "\r\n").first ?? "")
                return (
                    status
                        + (status.hasPrefix("HTTP/1.1 2")
                            ? "" : " " + String(decoding: received[(end + 4)...], as: UTF8.self).prefix(300)),
                    Array(received[(end + 4)..<(end + 4 + length)])
                )
            }
        }
    }
}
