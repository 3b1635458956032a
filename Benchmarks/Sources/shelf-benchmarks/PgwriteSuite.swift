import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfReactive
import ShelfStore

/// `pgwrite` (issue 23): how much Shelf's change capture on PostgreSQL costs writers.
/// pgbench runs `--clients` (32) clients of one-row inserts into Shelf's `items` for
/// `--seconds` (10) per round, while a Shelf store holds a live window of the newest items;
/// rounds alternate between a scratch database as migrated (the change log's triggers on) and a
/// second one of the same schema with the triggers of the change log and of the item counts
/// disabled, `--rounds` (3) of each,
/// capture on last. Reports
/// transactions/s with capture against without (target: at least 0.85), and checks that the
/// live window's count ends equal to the table's.
///
/// Run it against a server of your own (it creates and drops two scratch databases):
/// `shelf-benchmarks pgwrite --postgres postgres://postgres@127.0.0.1:PORT/postgres`.
/// pgbench comes with PostgreSQL (Debian: `postgresql-contrib`, or `pgbench`).
struct PgwriteSuite {
    let server: PostgresBenchServer
    let seconds: Int
    let rounds: Int
    let clients: Int
    let report: Report

    func run() async throws {
        guard
            let pgbench = ["/usr/bin/pgbench", "/usr/local/bin/pgbench"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BenchError("pgwrite needs pgbench (apt-get install postgresql-contrib)")
        }
        report.header()
        // Two scratch databases of one schema: the listened one keeps its change capture, the
        // other has it disabled (the baseline). Rounds alternate between them. (Disabling the
        // trigger on the listened database, as this suite did, wrote rows no change log holds:
        // a live value kept from the log never counts them, so its final check failed for a
        // reason that is not a fault.)
        try await server.withScratch { scratch in
            try await server.withScratch { plain in
                try await plain.withConnection { connection in
                    // The change log's trigger and the item counts' (Migrations/postgres/0012).
                    let triggers = [
                        "items_log_change", "items_count_insert", "items_count_update", "items_count_delete",
                    ]
                    for trigger in triggers {
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "ALTER TABLE items DISABLE TRIGGER \(trigger)"), logger: .bench)
                    }
                }
                try await measure(pgbench, captured: scratch, plain: plain)
            }
        }
    }

    private func measure(_ pgbench: String, captured scratch: PostgresBenchServer, plain: PostgresBenchServer)
        async throws
    {
        let store = try await Store.open(postgres: scratch.url)
        let live = try await store.liveItems(matching: ItemQuery(), limit: 50)
        let script = FileManager.default.temporaryDirectory.appending(
            path: "shelf-pgwrite-\(UUID().uuidString).sql")
        try "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'pgbench item', 0, 0);\n"
            .write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }

        var with: [Double] = []
        var without: [Double] = []
        for round in 0..<(2 * rounds) {
            let capture = round % 2 == 1  // off, on, off, on, …: capture on last
            let tps = try pgbenchTPS(pgbench, script: script.path, url: capture ? scratch.url : plain.url)
            if capture { with.append(tps) } else { without.append(tps) }
            report.note(
                "round \(round + 1): capture \(capture ? "on " : "off") \(String(format: "%.0f", tps)) tx/s")
        }
        report.compare(
            "pgwrite.tps_32_clients", unit: "tx/s", shelf: with,
            against: [("capture disabled", without, "ratio >= 0.85")])

        // The listener's final value equals the table: every row of the listened database came
        // through its change log, under 32 concurrent writers.
        let table = try await scratch.withConnection { connection in
            let rows = try await connection.query("SELECT count(*) FROM items", logger: .bench)
            for try await count in rows.decode(Int.self) { return count }
            return -1
        }
        let deadline = ContinuousClock.now + .seconds(30)
        var shown = -1
        while ContinuousClock.now < deadline {
            shown = (try? live.value.get())?.totalCount ?? -1
            if shown == table { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        report.print(
            Figure(
                name: "pgwrite.final_value_equals_table", unit: "(1 = yes)", value: shown == table ? 1 : 0,
                target: "1 (live \(shown), table \(table))"))
        await store.close()
    }

    /// pgbench's "tps = …" (without the initial connection time) for one round.
    private func pgbenchTPS(_ pgbench: String, script: String, url: String) throws -> Double {
        let output = FileManager.default.temporaryDirectory.appending(path: "shelf-pgwrite-\(UUID().uuidString).out")
            .path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let arguments = [pgbench, "-n", "-c", "\(clients)", "-j", "2", "-T", "\(seconds)", "-f", script, url]
        let status = try Self.spawnAndWait(arguments, stdout: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let value = Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
        else {
            throw BenchError("pgbench failed (status \(status)): \(text)")
        }
        return value
    }

    /// Runs `arguments` with stdout to the file `stdout` and waits. The child starts with no
    /// signal blocked: it would inherit this process's mask (its threads block signals), and
    /// pgbench's `-T` ends its run with SIGALRM, so it would never end (Foundation's `Process`
    /// does not reset the mask).
    static func spawnAndWait(_ arguments: [String], stdout: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw BenchError("could not start \(arguments[0]) (error \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
