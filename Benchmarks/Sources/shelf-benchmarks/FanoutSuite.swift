import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `fanout.*` (issue 23): a service holding one live query per client. `items` items (100,000)
/// of 1,000 owners; N live newest-first windows of 50 with their counts (a quarter unfiltered, a
/// quarter by owner, a quarter by priority or status, a quarter by a search word), every one
/// observed; one writer offering `rate` one-row writes a second (inserts, and a fifth updates
/// of a recent item's priority) for `seconds`.
///
/// Reported per N, as JSON lines: commits/s; delivery p99 from commit (each observer's first
/// value showing a new item at its head, against the moment its insert returned); the write
/// call's p99 against the same run with no live query (N = 0); missed (windows that, 2 s after
/// the last write, differ from a fresh read); RSS per live query; open time of the N; CPU per
/// commit; live reads per commit (`Store.liveReadCount`); cores used (CPU over wall time
/// during the writes). `--no-wait`: the writer starts a write every 1/rate s whatever happens
/// (writers that do not wait), each a task of its own.
///
/// With `--backend postgres` (`server`), the same on PostgreSQL: the seed is a scratch
/// database, and each run a copy of it (`CREATE DATABASE … TEMPLATE`); CPU is this process's
/// only (the server's is not counted).
struct FanoutSuite {
    let items: Int
    let counts: [Int]
    let seconds: Int
    let rate: Int
    let noWait: Bool
    let report: Report
    var server: PostgresBenchServer? = nil

    static let owners = 1_000
    static let words = [
        "apple", "river", "stone", "cloud", "ember", "frost", "grain", "harbor", "island", "jungle", "kettle",
        "lantern", "meadow", "needle", "orchard", "pepper", "quartz", "raven", "saddle", "timber", "umbra",
        "velvet", "willow", "yonder", "zephyr", "anchor", "bramble", "cinder", "dapple", "eagle", "fable",
        "garnet", "hollow", "ivory", "jasper", "kindle", "lumen", "marble", "nectar", "opal", "pebble",
        "quiver", "ripple", "sorrel", "thistle", "upland", "vessel", "walnut", "yarrow", "zenith", "acorn",
        "beacon", "candle", "dune", "echo", "fern", "glade", "heron", "iris", "juniper",
    ]

    func run() async throws {
        report.header()
        report.note(
            "fanout: \(items) items of \(Self.owners) owners; N live newest-first windows of 50 with counts "
                + "(1/4 unfiltered, 1/4 by owner, 1/4 by prio or status, 1/4 by a word), each observed; "
                + "\(rate) one-row writes/s (4/5 inserts, 1/5 priority updates) for \(seconds) s"
                + (noWait ? ", each write started on time whatever happens (writers that do not wait)" : ""))
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seed = folder.appendingPathComponent("seed.sqlite").path
        var postgresSeed: PostgresBenchServer?
        if let server {
            let scratch = try await server.createScratch()
            postgresSeed = scratch
            try await populate(try await Store.open(postgres: scratch.url))
        } else {
            try await populate(try Store(path: seed))
        }
        do {
            try await measureAll(seed: seed, folder: folder, postgresSeed: postgresSeed)
        } catch {
            if let server, let postgresSeed { await server.drop(postgresSeed) }
            throw error
        }
        if let server, let postgresSeed { await server.drop(postgresSeed) }
    }

    /// The runs with no live query and with each count, each on a copy of the seed.
    func measureAll(seed: String, folder: URL, postgresSeed: PostgresBenchServer?) async throws {
        var baselineP99: Double?
        for count in [0] + counts {
            let result: Result
            if let server, let postgresSeed {
                let name = "\(postgresSeed.database)_\(count)"
                try await server.withConnection { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(postgresSeed.database)"),
                        logger: .bench)
                }
                let copy = server.with(database: name)
                do {
                    result = try await measure(store: try await Store.open(postgres: copy.url), liveQueries: count)
                } catch {
                    await server.drop(copy)
                    throw error
                }
                await server.drop(copy)
            } else {
                let path = folder.appendingPathComponent("run-\(count).sqlite").path
                try copyDatabase(seed, to: path)
                result = try await measure(store: try Store(path: path), liveQueries: count)
            }
            if count == 0 {
                baselineP99 = result.writeP99
                report.print(Figure(name: "fanout.0.write_p99", unit: "ms", value: result.writeP99 * 1000, target: ""))
                report.print(
                    Figure(name: "fanout.0.commits_per_second", unit: "1/s", value: result.commitsPerSecond, target: "")
                )
                continue
            }
            let prefix = "fanout\(noWait ? ".nowait" : "").\(count)"
            func figure(_ name: String, _ unit: String, _ value: Double, _ target: String = "") {
                report.print(Figure(name: "\(prefix).\(name)", unit: unit, value: value, target: target))
            }
            figure("commits_per_second", "1/s", result.commitsPerSecond, "\(rate)")
            figure("delivery_p99", "ms", result.deliveryP99 * 1000, "<= 50")
            figure("delivery_max", "ms", result.deliveryMax * 1000)
            figure("write_p99", "ms", result.writeP99 * 1000)
            figure("write_p99_ratio", "x", result.writeP99 / (baselineP99 ?? .nan), "<= 1.2")
            figure("missed", "windows", Double(result.missed), "0")
            figure("rss_per_live_query", "KB", result.rssPerQuery / 1024, "<= 16")
            figure("open_seconds", "s", result.openSeconds, "<= 2 at 10,000")
            figure("cpu_per_commit", "ms", result.cpuPerCommit * 1000)
            figure("live_reads_per_commit", "reads", result.readsPerCommit)
            figure("cores_used", "cores", result.coresUsed)
            figure("distinct_queries", "keys", Double(result.distinct))
        }
    }

    struct Result {
        var commitsPerSecond = 0.0
        var deliveryP99 = 0.0
        var deliveryMax = 0.0
        var writeP99 = 0.0
        var missed = 0
        var rssPerQuery = 0.0
        var openSeconds = 0.0
        var cpuPerCommit = 0.0
        var readsPerCommit = 0.0
        var coresUsed = 0.0
        var distinct = 0
    }

    /// The query of live window `index` of N (a quarter of each kind).
    static func query(_ index: Int) -> ItemQuery {
        switch index % 4 {
        case 0: return ItemQuery()
        case 1: return ItemQuery(owner: User.ID(Int64(index / 4 % owners + 1)))
        case 2:
            let shapes = ["prio:0", "prio:1", "prio:2", "prio:3", "status:open", "status:done"]
            return ItemQuery(text: shapes[index / 4 % shapes.count])
        default: return ItemQuery(text: words[index / 4 % words.count])
        }
    }

    /// When each inserted item's insert returned, by ID; and the delivery delays seen.
    final class Deliveries: Sendable {
        let commits = Mutex<[Int64: ContinuousClock.Instant]>([:])
        let delays = Mutex<[Double]>([])

        func saw(_ window: ItemWindow, watcher: Watcher) {
            guard let head = window.items.first?.id.rawValue else { return }
            let previous = watcher.lastHead.withLock { last -> Int64 in
                defer { last = max(last, head) }
                return last
            }
            guard head > previous, let committed = commits.withLock({ $0[head] }) else { return }
            let delay = (ContinuousClock.now - committed).seconds
            delays.withLock { $0.append(delay) }
        }
    }

    /// The writes: each one's call time, and the inserted items' commit moments.
    final class Writer: Sendable {
        let store: Store
        let deliveries: Deliveries
        let times = Mutex<[Double]>([])
        let commits = Atomic<Int>(0)
        let recent = Mutex<Item.ID?>(nil)

        init(store: Store, deliveries: Deliveries) {
            self.store = store
            self.deliveries = deliveries
        }

        /// Write `index`: every fifth moves the priority of the latest inserted item, the
        /// others insert one.
        func write(_ index: Int) async throws {
            if index % 5 == 4, let id = recent.withLock({ $0 }) {
                guard var item = try await store.items.item(id: id) else { return }
                item.priority = (item.priority + 1) % 4
                let begin = ContinuousClock.now
                _ = try await store.items.update(item)
                times.withLock { $0.append((ContinuousClock.now - begin).seconds) }
            } else {
                let item = NewItem(
                    userID: User.ID(Int64(index % FanoutSuite.owners + 1)),
                    title: "\(FanoutSuite.words[index % FanoutSuite.words.count]) new \(index)", priority: index % 4)
                let begin = ContinuousClock.now
                let id = try await store.items.insert(item)
                let done = ContinuousClock.now
                deliveries.commits.withLock { $0[id.rawValue] = done }
                times.withLock { $0.append((done - begin).seconds) }
                recent.withLock { $0 = id }
            }
            commits.add(1, ordering: .relaxed)
        }
    }

    /// One observer: the head it last saw (a new item is at the head of every window it joins).
    final class Watcher: Sendable {
        let lastHead = Mutex<Int64>(0)
    }

    func measure(store: Store, liveQueries: Int) async throws -> Result {
        let deliveries = Deliveries()
        let token = Lifetime.Token()
        let rssBefore = residentBytes()
        let openStart = ContinuousClock.now
        // Opened by 16 tasks at once, as clients of a service connect.
        let properties = try await withThrowingTaskGroup(of: [(ItemQuery, Property<LiveResult<ItemWindow>>)].self) {
            group in
            let lanes = 16
            for lane in 0..<lanes {
                group.addTask {
                    var opened: [(ItemQuery, Property<LiveResult<ItemWindow>>)] = []
                    for index in stride(from: lane, to: liveQueries, by: lanes) {
                        let query = Self.query(index)
                        opened.append((query, try await store.liveItems(matching: query, limit: 50)))
                    }
                    return opened
                }
            }
            var all: [(ItemQuery, Property<LiveResult<ItemWindow>>)] = []
            for try await opened in group { all += opened }
            return all
        }
        let openSeconds = (ContinuousClock.now - openStart).seconds
        for (_, property) in properties {
            let watcher = Watcher()
            property.observe(during: token.lifetime) { result in
                if case .success(let window) = result { deliveries.saw(window, watcher: watcher) }
            }
        }
        let rssAfter = residentBytes()
        try await Task.sleep(for: .seconds(1))

        let readsBefore = store.liveReadCount
        let usageBefore = Usage.now()
        let start = ContinuousClock.now
        let writer = Writer(store: store, deliveries: deliveries)
        let interval = Duration.seconds(1) / rate
        let total = seconds * rate
        if noWait {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<total {
                    group.addTask { try await writer.write(index) }
                    try await Task.sleep(until: start + interval * (index + 1), clock: .continuous)
                }
                try await group.waitForAll()
            }
        } else {
            for index in 0..<total {
                try await writer.write(index)
                let next = start + interval * (index + 1)
                if next > ContinuousClock.now { try await Task.sleep(until: next, clock: .continuous) }
            }
        }
        let wall = (ContinuousClock.now - start).seconds
        try await Task.sleep(for: .seconds(2))
        let usage = Usage.now() - usageBefore
        let reads = store.liveReadCount - readsBefore
        let done = writer.commits.load(ordering: .relaxed)
        // Missed: windows that differ from a fresh read of their query once writes stopped.
        var fresh: [ItemQuery: ItemWindow] = [:]
        var missed = 0
        for (query, property) in properties {
            if fresh[query] == nil {
                fresh[query] = ItemWindow(
                    items: try await store.items.items(matching: query, after: nil, limit: 50),
                    totalCount: try await store.items.count(matching: query))
            }
            if (try? property.value.get()) != fresh[query] { missed += 1 }
        }
        token.end()
        let delays = deliveries.delays.withLock { $0 }
        let writes = writer.times.withLock { $0 }
        var result = Result()
        result.commitsPerSecond = Double(done) / wall
        result.deliveryP99 = percentile(delays, 99)
        result.deliveryMax = delays.max() ?? .nan
        result.writeP99 = percentile(writes, 99)
        result.missed = missed
        result.rssPerQuery = liveQueries == 0 ? 0 : Double(rssAfter - rssBefore) / Double(liveQueries)
        result.openSeconds = openSeconds
        result.cpuPerCommit = usage.cpu / Double(max(done, 1))
        result.readsPerCommit = Double(reads) / Double(max(done, 1))
        result.coresUsed = usage.cpu / (wall + 2)
        result.distinct = Set(properties.map(\.0)).count
        withExtendedLifetime(properties) {}
        await store.close()
        return result
    }

    func populate(_ store: Store) async throws {
        _ = try await store.users.insert(
            contentsOf: (1...Self.owners).map { NewUser(name: "Owner \($0)", email: "owner\($0)@example.com") })
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var random = SeededRandomNumberGenerator(seed: 23)
        for start in stride(from: 0, to: items, by: 10_000) {
            let batch = (start..<min(items, start + 10_000)).map { index in
                NewItem(
                    userID: User.ID(Int64.random(in: 1...Int64(Self.owners), using: &random)),
                    title:
                        "\(Self.words.randomElement(using: &random)!) \(Self.words.randomElement(using: &random)!) \(index)",
                    status: Bool.random(using: &random) ? .open : .done,
                    priority: Int.random(in: 0...3, using: &random),
                    createdAt: base.addingTimeInterval(Double(index)))
            }
            _ = try await store.items.insert(contentsOf: batch)
        }
        await store.close()
    }

    func copyDatabase(_ source: String, to target: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    /// The process's resident set size.
    func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
