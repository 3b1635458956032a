import Foundation

// shelf-benchmarks SUITE [--json] [--runs N] [--rows N]
//   store   store.insert, store.fetch_all, store.page against the raw C API
//   live    live.latency_* against an update hook + re-query baseline; cross-process latency;
//           idle CPU of a watching process
//   presentation  presentation.search and presentation.page_down on 1,000,000 items against the
//           same SQL through the C API (--items N; the database is built once and cached)
//   browser   browser.first_frame against a sqlite3 process running the first page; key to frame
//           while scrolling and searching; peak RSS (the release shelf binary on a pseudo-terminal)
//   transfer  transfer.import_items against the sqlite3 shell's .import (every index live) and the
//           staged shell script (the floor); upsert and replace; export_items as csv, json and
//           ndjson against sqlite3 -csv; import and export of users (--user-rows N, 1,000,000);
//           1,000,000 items (--items N) of ~1,000 users (--users N), each command a process
//           timed and measured for peak RSS under /usr/bin/time; --only import|upsert|export|users;
//           --before PATH runs another shelf binary as one more baseline (TransferSuite)
//   importlock  import_lock.longest_wait: the longest wait of a one-row write from another
//           connection during a 1,000,000-row shelf import (--items N); --before PATH runs another
//           shelf binary (built from an older commit) as the baseline
//   --backend postgres [--postgres URL]: store, live and load on PostgreSQL against postgres-nio by
//           hand (PostgresStoreSuite, PostgresLiveSuite, PostgresLoadSuite); URL defaults to
//           $SHELF_BENCH_POSTGRES, else postgres://postgres:shelf@127.0.0.1:54329/postgres
//   load    8 writers for --seconds (30) while 4 `shelf watch items` processes watch (SQLite
//           without --backend postgres)
//   search  search.* at 1,000,000 items (--items N): first page and count of common and rare
//           words, two words, a phrase, owner filters; the owner order (SearchSuite); every
//           filter shape without words in every sort order (search.shape.*, QueryShapeSuite),
//           also on PostgreSQL with --backend postgres; --only search.shape.counts: their counts only
//   fanout  fanout.N.* (issue 23): 100,000 items (--items N), N = 1, 100, 1,000, 10,000 live windows
//           (--counts 1,100,1000,10000) of mixed filters, 20 one-row writes/s (--rate) for 30 s
//           (--seconds); --no-wait starts each write on time whatever happens (FanoutSuite)
//   pgwrite  pgwrite.* (issue 23): pgbench, 32 one-row-insert clients (--clients N) into Shelf's items
//           for --seconds (10) a round, --rounds (3) with the change log's trigger and as many without,
//           while a live window listens; needs pgbench and --postgres URL of a server of your own
//           (PgwriteSuite)
//   serve   serve.items_page_rps: wrk on GET /api/items?limit=50 of the release `shelf serve`
//           against a Hummingbird route answering the same bytes from memory; serve.sqlite.owners.*
//           and serve.sqlite.shared.*: p99 from commit to client, missed deliveries, repeated ids,
//           last windows against fresh reads, peak RSS and CPU of the server and of the load
//           generator, for --clients (10,000) live streams of 100 owners (in the second run
//           --shared (1,000) of them watching every item) while --rate (20) commits/s run for
//           --seconds (60) and --reconnects (1,000) random clients drop and resume with
//           Last-Event-ID; with --backend postgres, the same on two instances of one scratch
//           database (serve.postgres.*, cross_instance_p99_ms) (ServeSuite; loopback only)
//   copy    copy.sqlite_to_sqlite (against sqlite3 .backup), and with --postgres URL (or
//           $SHELF_BENCH_POSTGRES) copy.sqlite_to_postgres (sqlite3 -csv | psql COPY),
//           copy.postgres_to_sqlite (psql COPY | sqlite3 .import), copy.postgres_to_postgres
//           (pg_dump | psql): rows/s of the release `shelf copy`, and its peak RSS, on 1,000,000
//           items (--items N) of 1,000 users (--users N) (CopySuite)
//   terminal  terminal.scroll_bytes against a full redraw, frame time; terminal.snapshot_shuffle
//           against the standard library's difference(from:)
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int, in arguments: [String]) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let number = Int(arguments[index + 1])
    else { return value }
    return number
}
let json = arguments.contains("--json")
let runs = option("--runs", default: 5, in: arguments)
let rows = option("--rows", default: 200_000, in: arguments)
let report = Report(json: json)
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
let counts = arguments.firstIndex(of: "--counts").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let before = arguments.firstIndex(of: "--before").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let backend = arguments.firstIndex(of: "--backend").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let postgresURL = arguments.firstIndex(of: "--postgres").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let suites = arguments.filter {
    !$0.hasPrefix("--") && Int($0) == nil && $0 != only && $0 != before && $0 != backend && $0 != postgresURL
        && $0 != counts
}

guard !suites.isEmpty,
    suites.allSatisfy({
        [
            "store", "live", "terminal", "presentation", "browser", "transfer", "importlock", "load", "search",
            "fanout",
            "pgwrite",
            "serve",
            "copy",
        ]
        .contains($0)
    })
else {
    FileHandle.standardError.write(
        Data(
            "usage: shelf-benchmarks store|live|fanout|pgwrite|serve|load|terminal|presentation|browser|transfer|importlock|search|copy [--json] [--runs N] [--rows N] [--only BENCHMARK] [--backend sqlite|postgres] [--postgres URL]\n"
                .utf8))
    exit(2)
}
if suites == ["pgwrite"] {
    try await PgwriteSuite(
        server: try PostgresBenchServer(url: postgresURL ?? PostgresBenchServer.defaultURL),
        seconds: option("--seconds", default: 10, in: arguments), rounds: option("--rounds", default: 3, in: arguments),
        clients: option("--clients", default: 32, in: arguments), report: report
    ).run()
    exit(0)
}
if backend == "postgres" {
    try await runPostgres(
        suites, server: try PostgresBenchServer(url: postgresURL ?? PostgresBenchServer.defaultURL), report: report,
        arguments: arguments, runs: runs, rows: rows, only: only)
    exit(0)  // the SQLite suites below are not run on PostgreSQL
}
for suite in suites {
    switch suite {
    case "load": try await runLoad(server: nil, arguments: arguments, report: report)
    case "store": try await StoreSuite(rows: rows, runs: runs, report: report, only: only).run()
    case "live": try await LiveSuite(writes: option("--writes", default: 300, in: arguments), report: report).run()
    case "fanout":
        try await FanoutSuite(
            items: option("--items", default: 100_000, in: arguments),
            counts: (counts ?? "1,100,1000,10000").split(separator: ",").compactMap { Int($0) },
            seconds: option("--seconds", default: 30, in: arguments),
            rate: option("--rate", default: 20, in: arguments),
            noWait: arguments.contains("--no-wait"), report: report
        ).run()
    case "terminal": await TerminalSuite(runs: runs, report: report).run()
    case "serve":
        try await serveSuite(postgres: nil, arguments: arguments, runs: runs, report: report).run()
    case "search":
        try await SearchSuite(
            items: option("--items", default: 1_000_000, in: arguments), runs: runs, report: report, only: only
        ).run()
    case "browser":
        // The release shelf binary built by this package's dependency on Shelf.
        let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("shelf").path
        try await BrowserSuite(
            items: option("--items", default: 1_000_000, in: arguments), runs: runs, report: report, shelfPath: shelf
        ).run()
    case "transfer":
        let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("shelf").path
        try await TransferSuite(
            items: option("--items", default: 1_000_000, in: arguments),
            users: option("--users", default: 1_000, in: arguments),
            userRows: option("--user-rows", default: 1_000_000, in: arguments),
            runs: runs, report: report, shelfPath: shelf, beforePath: before, only: only
        ).run()
    case "copy":
        let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("shelf").path
        try await CopySuite(
            items: option("--items", default: 1_000_000, in: arguments),
            users: option("--users", default: 1_000, in: arguments), runs: option("--runs", default: 3, in: arguments),
            report: report, shelfPath: shelf,
            postgres: postgresURL ?? ProcessInfo.processInfo.environment["SHELF_BENCH_POSTGRES"]
        ).run()
    case "importlock":
        let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("shelf").path
        try ImportLockSuite(
            items: option("--items", default: 1_000_000, in: arguments),
            runs: option("--runs", default: 3, in: arguments), report: report, shelfPath: shelf,
            beforePath: before
        ).run()
    case "presentation":
        try await PresentationSuite(
            items: option("--items", default: 1_000_000, in: arguments), runs: runs, report: report, only: only
        ).run()
    default: break
    }
}

/// The serve suite with the options of `arguments`, on SQLite or on `postgres`.
func serveSuite(postgres: PostgresBenchServer?, arguments: [String], runs: Int, report: Report) -> ServeSuite {
    let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("shelf").path
    return ServeSuite(
        shelfPath: shelf, clients: option("--clients", default: 10_000, in: arguments),
        seconds: option("--seconds", default: 60, in: arguments),
        rate: option("--rate", default: 20, in: arguments), runs: runs,
        shared: option("--shared", default: 1_000, in: arguments),
        reconnects: option("--reconnects", default: 1_000, in: arguments), postgres: postgres, report: report)
}
