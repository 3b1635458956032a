import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfStore

/// `store.*` on PostgreSQL: Shelf (`Store.open(postgres:)`, its pool) against postgres-nio on
/// one plain connection running the same SQL as ShelfPostgres, by hand, in one run, sides
/// alternating. Throughputs; the ratio is Shelf over the hand-written side (target ≥ 0.9).
///
/// - `pg.store.insert`: a batch of `batch` items in one transaction (a fresh table each run).
/// - `pg.store.page_first`, `pg.store.page_deep`: the first keyset page of 50 items, and the
///   page after row 100,000 (or the middle) of `rows`, newest first.
/// - `pg.store.search`: the first 50 items whose words start with "pia" (a fifth of the rows).
///
/// References say where time goes: `raw-pool` runs the reads through a `PostgresClient` set up
/// as Shelf's, `raw-pool-quiet` through one with no timers (one kept connection, no
/// keep-alive), `raw-prepared` as named prepared statements on one connection; `raw-unnest`
/// inserts the whole batch in one statement (arrays bound once) instead of one per row.
/// `pg.store.round_trip` (SELECT 1) and `pg.store.pool_lease` (an empty lease) give the scale.
struct PostgresStoreSuite {
    let server: PostgresBenchServer
    let rows: Int
    let batch: Int
    let runs: Int
    let report: Report
    let only: String?

    func wanted(_ name: String) -> Bool { only == nil || only == name }

    func run() async throws {
        report.note("pg.store on \(server.host):\(server.port), \(PostgresBaseline.machineLoad())")
        report.header()
        if wanted("pg.store.insert") { try await runInsert() }
        if wanted("pg.store.page_first") || wanted("pg.store.page_deep") || wanted("pg.store.search") {
            try await runReads()
        }
        report.note("pg.store done, \(PostgresBaseline.machineLoad())")
    }

    // MARK: Insert

    func makeItems() -> [NewItem] {
        StoreSuite(rows: batch, runs: 1, report: report, only: nil).makeItems()
    }

    func runInsert() async throws {
        let items = makeItems()
        try await server.withScratch { shelfDatabase in
            try await server.withScratch { rawDatabase in
                let store = try await Store.open(postgres: shelfDatabase.url)
                let shelfAdmin = try await shelfDatabase.connect()
                let raw = try await rawDatabase.connect()
                var shelf: [Double] = []
                var hand: [Double] = []
                var unnest: [Double] = []
                for run in 0..<runs {
                    for side in run % 2 == 0 ? [0, 1, 2] : [1, 0, 2] {
                        switch side {
                        case 0:
                            try await shelfAdmin.query("TRUNCATE items", logger: .bench)
                            let seconds = try await time { _ = try await store.items.insert(contentsOf: items) }
                            shelf.append(Double(items.count) / seconds)
                        case 1:
                            try await raw.query("TRUNCATE items", logger: .bench)
                            let seconds = try await time { _ = try await insertByHand(items, on: raw) }
                            hand.append(Double(items.count) / seconds)
                        default:
                            try await raw.query("TRUNCATE items", logger: .bench)
                            let seconds = try await time { _ = try await insertUnnest(items, on: raw) }
                            unnest.append(Double(items.count) / seconds)
                        }
                    }
                }
                let stored = try await PostgresBaseline.integer("SELECT count(*) FROM items", on: shelfAdmin)
                precondition(stored == items.count, "shelf stored \(stored) of \(items.count)")
                try await shelfAdmin.close()
                try await raw.close()
                await store.close()
                report.compare(
                    "pg.store.insert", unit: "rows/s", shelf: shelf,
                    against: [
                        ("postgres-nio", hand, "ratio >= 0.9"),
                        ("raw-unnest", unnest, "(one statement for the batch)"),
                    ])
            }
        }
    }

    /// ShelfPostgres's insert, by hand: BEGIN, one `INSERT … RETURNING id` per item, COMMIT.
    func insertByHand(_ items: [NewItem], on connection: PostgresConnection) async throws -> [Int64] {
        let now = PostgresBaseline.milliseconds(Date())
        try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: .bench)
        var ids: [Int64] = []
        ids.reserveCapacity(items.count)
        for item in items {
            let created = item.createdAt.map(PostgresBaseline.milliseconds) ?? now
            let rows = try await connection.query(
                """
                INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
                VALUES (\(item.userID.rawValue), \(item.title), \(item.notes), \(item.status.rawValue),
                    \(Int64(item.priority)), \(created), \(created), 1)
                RETURNING id
                """, logger: .bench)
            for try await id in rows.decode(Int64.self) { ids.append(id) }
        }
        try await connection.query("COMMIT", logger: .bench)
        return ids
    }

    /// The whole batch in one statement: seven arrays bound once, unnested in order.
    func insertUnnest(_ items: [NewItem], on connection: PostgresConnection) async throws -> [Int64] {
        let now = PostgresBaseline.milliseconds(Date())
        let users = items.map(\.userID.rawValue)
        let titles = items.map(\.title)
        let notes = items.map { $0.notes ?? "" }
        let hasNotes = items.map { $0.notes != nil }
        let statuses = items.map(\.status.rawValue)
        let priorities = items.map { Int64($0.priority) }
        let created = items.map { $0.createdAt.map(PostgresBaseline.milliseconds) ?? now }
        try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: .bench)
        let rows = try await connection.query(
            """
            INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
            SELECT u, t, CASE WHEN h THEN n END, s, p, c, c, 1
            FROM unnest(\(users), \(titles), \(notes), \(hasNotes), \(statuses), \(priorities), \(created))
                WITH ORDINALITY AS batch (u, t, n, h, s, p, c, position)
            ORDER BY position
            RETURNING id
            """, logger: .bench)
        var ids: [Int64] = []
        ids.reserveCapacity(items.count)
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        try await connection.query("COMMIT", logger: .bench)
        return ids
    }

    // MARK: Reads

    func runReads() async throws {
        try await server.withScratch { database in
            try await PostgresBaseline.fill(database, rows: rows)
            let store = try await Store.open(postgres: database.url)
            let raw = try await database.connect()
            // Pools set up as ShelfPostgres sets up its own (PostgresLocation.clientConfiguration),
            // and the same with no timers: at every release a pool starts a keep-alive timer (a
            // task; on by default) and, for a connection above `minimumConnections`, an idle
            // timer, and cancels them at the next lease. `quiet` keeps one connection and no
            // keep-alive, so a lease and a release start and cancel nothing.
            func makeClient(quiet: Bool) -> PostgresClient {
                var configuration = PostgresClient.Configuration(
                    host: database.host, port: database.port, username: database.user, password: database.password,
                    database: database.database, tls: .disable)
                configuration.options.connectTimeout = .seconds(10)
                configuration.options.maximumConnections = 8
                if quiet {
                    configuration.options.minimumConnections = 1
                    configuration.options.keepAliveBehavior = nil
                }
                return PostgresClient(configuration: configuration, backgroundLogger: .bench)
            }
            let client = makeClient(quiet: false)
            let keeping = makeClient(quiet: true)
            let clientTask = Task { await client.run() }
            let keepingTask = Task { await keeping.run() }
            defer {
                clientTask.cancel()
                keepingTask.cancel()
            }

            let columns = PostgresBaseline.itemColumns
            let order = "ORDER BY created_at DESC, id DESC"
            let anchorRow = min(100_000, rows / 2)
            let anchor = try await PostgresBaseline.items(
                PostgresQuery(unsafeSQL: "SELECT \(columns) FROM items \(order) OFFSET \(anchorRow) LIMIT 1"), on: raw)[
                    0]
            let cursor = ItemCursor(anchor)
            let anchorMilliseconds = PostgresBaseline.milliseconds(anchor.createdAt)
            let anchorID = anchor.id.rawValue

            // The SQL ItemQuery.postgresPage writes for these three queries.
            // `prepared`: the same as a named prepared statement (a reference; not for the first page).
            typealias Prepared = @Sendable (PostgresConnection) async throws -> [Item]
            let cases:
                [(
                    name: String, query: ItemQuery, cursor: ItemCursor?, sql: @Sendable () -> PostgresQuery,
                    prepared: Prepared?
                )] = [
                    (
                        "pg.store.page_first", ItemQuery(), nil,
                        {
                            PostgresQuery(unsafeSQL: "SELECT \(columns) FROM items \(order) LIMIT $1", binds: binds(50))
                        },
                        nil
                    ),
                    (
                        "pg.store.page_deep", ItemQuery(), cursor,
                        {
                            PostgresQuery(
                                unsafeSQL:
                                    "SELECT \(columns) FROM items WHERE (created_at, id) < ($1, $2) \(order) LIMIT $3",
                                binds: binds(anchorMilliseconds, anchorID, 50))
                        },
                        { connection in
                            try await PostgresPreparedPages.items(
                                PostgresPreparedPages.Deep(createdAt: anchorMilliseconds, id: anchorID, limit: 50),
                                on: connection)
                        }
                    ),
                    (
                        "pg.store.search", ItemQuery(text: "pia"), nil,
                        {
                            PostgresQuery(
                                unsafeSQL:
                                    "SELECT \(columns) FROM items WHERE search @@ to_tsquery('simple', $1) \(order) LIMIT $2",
                                binds: binds("'pia':*", 50))
                        },
                        { connection in
                            try await PostgresPreparedPages.items(
                                PostgresPreparedPages.Search(match: "'pia':*", limit: 50), on: connection)
                        }
                    ),
                ]
            for benchmark in cases where wanted(benchmark.name) {
                let expected = try await store.items.items(
                    matching: benchmark.query, after: benchmark.cursor, limit: 50)
                let byHand = try await PostgresBaseline.items(benchmark.sql(), on: raw)
                precondition(expected == byHand, "\(benchmark.name): shelf and postgres-nio pages differ")
                precondition(expected.count == 50, "\(benchmark.name): \(expected.count) items, not 50")
                if let prepared = benchmark.prepared {
                    let page = try await prepared(raw)
                    precondition(page == expected, "\(benchmark.name): the prepared page differs")
                }
                let sides = benchmark.prepared == nil ? [0, 1, 2, 4] : [0, 1, 2, 3, 4]
                // Short batches, sides alternating, many of them: a burst of load from a
                // neighbour lands in a few batches of every side, and the medians shrug it off.
                let pages = 100
                var shelf: [Double] = []
                var hand: [Double] = []
                var pooled: [Double] = []
                var preparedRates: [Double] = []
                var keptRates: [Double] = []
                for batch in 0..<(runs * 6 + 1) {
                    var times = [0.0, 0.0, 0.0, 0.0, 0.0]
                    for side in batch % 2 == 0 ? sides : sides.reversed() {
                        times[side] = try await time {
                            for _ in 0..<pages {
                                switch side {
                                case 0:
                                    _ = try await store.items.items(
                                        matching: benchmark.query, after: benchmark.cursor, limit: 50)
                                case 1: _ = try await PostgresBaseline.items(benchmark.sql(), on: raw)
                                case 3: _ = try await benchmark.prepared?(raw)
                                case 4:
                                    _ = try await keeping.withConnection { connection in
                                        try await PostgresBaseline.items(benchmark.sql(), on: connection)
                                    }
                                default:
                                    _ = try await client.withConnection { connection in
                                        try await PostgresBaseline.items(benchmark.sql(), on: connection)
                                    }
                                }
                            }
                        }
                    }
                    guard batch > 0 else { continue }  // the first batch warms every side up
                    shelf.append(Double(pages) / times[0])
                    hand.append(Double(pages) / times[1])
                    pooled.append(Double(pages) / times[2])
                    if times[3] > 0 { preparedRates.append(Double(pages) / times[3]) }
                    keptRates.append(Double(pages) / times[4])
                }
                report.compare(
                    benchmark.name, unit: "pages/s", shelf: shelf,
                    against: [
                        ("postgres-nio", hand, "ratio >= 0.9"),
                        ("raw-pool", pooled, "(the same through a PostgresClient)"),
                        ("raw-pool-quiet", keptRates, "(a PostgresClient with no timers: 1 kept, no keep-alive)"),
                    ] + (preparedRates.isEmpty ? [] : [("raw-prepared", preparedRates, "(a named prepared statement)")])
                )
            }
            if only == nil {
                // Where a page's time goes: a bare round trip, and a pool lease with no query.
                var trips: [Double] = []
                var leases: [Double] = []
                for _ in 0..<(runs * 6) {
                    trips.append(
                        try await time { for _ in 0..<200 { try await raw.query("SELECT 1", logger: .bench) } } / 200)
                    leases.append(
                        try await time { for _ in 0..<200 { try await client.withConnection { _ in } } } / 200)
                }
                report.print(
                    Figure(
                        name: "pg.store.round_trip", unit: "us", value: median(trips) * 1e6,
                        target: "(SELECT 1 on one connection: the floor of any page)"))
                report.print(
                    Figure(
                        name: "pg.store.pool_lease", unit: "us", value: median(leases) * 1e6,
                        target: "(PostgresClient.withConnection with no query: what the pool adds to each read)"))
            }
            try await raw.close()
            await store.close()
        }
    }
}

/// Bindings of `values`, in order ($1, $2, …).
func binds(_ values: any PostgresDynamicTypeEncodable...) -> PostgresBindings {
    var bindings = PostgresBindings()
    for value in values { bindings.append(value) }
    return bindings
}
