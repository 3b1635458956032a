import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `shelf-benchmarks serve`: the release `shelf serve` on loopback.
///
/// - `serve.items_page_rps`: `wrk` on `GET /api/items?limit=50` against a Hummingbird route in
///   this process that answers the same bytes from memory (the floor of the HTTP stack); target
///   ratio >= 0.5.
/// - `serve.live_p99_ms`: `--clients` live streams (default 10,000; 100 owners, each client
///   watching its owner's open items: 100 distinct queries) while `--rate` commits a second
///   (20) are spread over the owners for `--seconds` (60): from the commit being sent to each
///   watching client reading the window that holds it, p99 (target <= 100 ms); the server's
///   peak RSS (target <= 1 GiB); the load generator's own CPU, so the server's share is clear.
///   Every loop is bounded in count and time; connections are loopback only.
struct ServeSuite {
    let shelfPath: String
    let clients: Int
    let seconds: Int
    let rate: Int
    /// `wrk` runs of each side for the page figure (medians compared).
    let runs: Int
    let report: Report

    func run() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("serve.sqlite").path
        try await Self.seed(database, owners: 100, itemsPerOwner: 20)
        let server = try ServeProcess(shelf: shelfPath, database: database, folder: folder)
        defer { server.stop() }
        try await itemsPage(server)
        // `--clients 0`: the page figure alone.
        if clients > 0 { try await live(server) }
    }

    /// 100 owners `o001@bench.example` …, each with `itemsPerOwner` open items.
    static func seed(_ path: String, owners: Int, itemsPerOwner: Int) async throws {
        let store = try Store(path: path)
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

    private func live(_ server: ServeProcess) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let clock = ContinuousClock()
        let start = clock.now
        let commits = CommitTimes()
        let latencies = Latencies()
        var channels: [any Channel] = []
        let port = server.port
        for client in 0..<clients {
            let owner = client % 100 + 1
            let query = "owner:\(Self.email(owner).prefix(5))%20is:open"
            let request =
                "GET /api/items/live?q=\(query)&sort=created&order=desc&limit=10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            WindowScanner(commits: commits, latencies: latencies, clock: clock, start: start))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            channels.append(channel)
        }
        report.note("serve: \(clients) live streams open; \(rate) commits/s for \(seconds) s")
        let usageBefore = Self.cpuSeconds()
        var peak = server.residentBytes()
        let deadline = clock.now + .seconds(seconds)
        var sequence = 0
        let writer = try WriterConnection(port: port)
        while clock.now < deadline, sequence < rate * seconds {
            sequence += 1
            let owner = sequence % 100 + 1
            commits.record(sequence, at: clock.now - start)
            try writer.post(#"{"title": "t\#(sequence)", "user": "\#(Self.email(owner))"}"#)
            peak = max(peak, server.residentBytes())
            try await Task.sleep(for: .milliseconds(1000 / rate))
        }
        try await Task.sleep(for: .seconds(2))
        let generatorCPU = Self.cpuSeconds() - usageBefore
        for channel in channels { channel.close(promise: nil) }
        let samples = latencies.all()
        let expected = sequence * (clients / 100)
        report.print(
            Figure(
                name: "serve.live_p99_ms", unit: "ms", value: samples.isEmpty ? .infinity : percentile(samples, 99),
                target: "<= 100"))
        report.print(
            Figure(name: "serve.live_delivered", unit: "windows", value: Double(samples.count), target: "= \(expected)")
        )
        report.print(
            Figure(name: "serve.peak_rss_mib", unit: "MiB", value: Double(peak) / 1_048_576, target: "<= 1024"))
        report.print(
            Figure(
                name: "serve.load_generator_cpu_s", unit: "s", value: generatorCPU,
                target: "of \(seconds + 2) s wall; the rest of the machine's CPU is the server's"))
    }

    /// User and system CPU of this process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// When each commit was sent, by sequence number.
final class CommitTimes: Sendable {
    private let times = Mutex<[Int: Duration]>([:])
    func record(_ sequence: Int, at time: Duration) { times.withLock { $0[sequence] = time } }
    func time(of sequence: Int) -> Duration? { times.withLock { $0[sequence] } }
}

/// Commit-to-client latencies in milliseconds.
final class Latencies: Sendable {
    private let samples = Mutex<[Double]>([])
    func add(_ milliseconds: Double) { samples.withLock { $0.append(milliseconds) } }
    func all() -> [Double] { samples.withLock { $0 } }
}

/// Reads a live stream's raw bytes and finds the titles `"title":"tN"` in them: the first time
/// a client sees commit N is a delivery.
final class WindowScanner: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let commits: CommitTimes
    let latencies: Latencies
    let clock: ContinuousClock
    let start: ContinuousClock.Instant
    // Touched on the channel's event loop only.
    private let state = Mutex<(carry: [UInt8], seen: Int)>(([], 0))
    private static let marker = Array(#""title":"t"#.utf8)

    init(commits: CommitTimes, latencies: Latencies, clock: ContinuousClock, start: ContinuousClock.Instant) {
        self.commits = commits
        self.latencies = latencies
        self.clock = clock
        self.start = start
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let now = clock.now - start
        state.withLock { state in
            let bytes = state.carry + Array(buffer.readableBytesView)
            var index = 0
            var newest = state.seen
            while index + Self.marker.count < bytes.count {
                if bytes[index] == Self.marker[0], Array(bytes[index..<index + Self.marker.count]) == Self.marker {
                    var cursor = index + Self.marker.count
                    var number = 0
                    while cursor < bytes.count, (48...57).contains(bytes[cursor]) {
                        number = number * 10 + Int(bytes[cursor] - 48)
                        cursor += 1
                    }
                    if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\""), number > state.seen {
                        if let sent = commits.time(of: number) {
                            latencies.add(
                                Double((now - sent).components.attoseconds) / 1e15
                                    + Double((now - sent).components.seconds) * 1000)
                        }
                        newest = max(newest, number)
                    }
                    index = cursor
                } else {
                    index += 1
                }
            }
            state.seen = newest
            state.carry = Array(bytes.suffix(32))
        }
    }
}

/// A `shelf serve` process on a port it picked.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: `process` is only started, read and stopped by the suite's one task.
    let process = Process()
    let base: String
    let port: Int

    init(shelf: String, database: String, folder: URL) throws {
        let output = folder.appendingPathComponent("serve.out")
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
    }

    deinit { close(descriptor) }

    func post(_ json: String) throws {
        let body = Array(json.utf8)
        let request =
            Array(
                "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8) + body
        guard
            request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count
        else { throw BenchError("the writer's connection closed") }
        // The answer: headers, then Content-Length bytes.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchError("the writer's connection closed") }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            guard text.hasPrefix("HTTP/1.1 201") else { throw BenchError("a commit failed: \(text.prefix(200))") }
            let length =
                text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
            if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return }
        }
    }
}
