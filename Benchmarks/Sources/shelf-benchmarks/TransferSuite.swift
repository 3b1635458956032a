import Foundation

/// `transfer.import_csv` and `transfer.export_csv`: the release `shelf` binary against the
/// sqlite3 shell on the same rows and schema (triggers included), each a process of its own,
/// with the peak resident memory of each.
///
/// The rows are the presentation suite's cached store. Shelf imports its own export
/// (`id,user,title,…` with emails and ISO 8601 times); the shell imports the same rows in the
/// table's own columns with `.import --csv`. The shell exports with the SELECT that writes
/// Shelf's columns (a join for the email, strftime for the times).
struct TransferSuite {
    let items: Int
    let runs: Int
    let report: Report
    let shelfPath: String

    func run() async throws {
        let source = try await PresentationSuite(items: items, runs: runs, report: report, only: nil).cachedDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-transfer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        // An empty store holding the source's users, copied per import run.
        let template = path("template.sqlite")
        try check(run(shelfPath, ["migrate", "--db", template]))
        try check(
            run("/usr/bin/sqlite3", [template, "ATTACH '\(source)' AS s; INSERT INTO users SELECT * FROM s.users"]))
        try check(run("/usr/bin/sqlite3", [template, "PRAGMA wal_checkpoint(TRUNCATE)"]))

        // Export.
        let selectSQL = """
            SELECT i.id, u.email AS user, i.title, i.notes, i.status, i.priority,
                strftime('%Y-%m-%dT%H:%M:%fZ', i.created_at / 1000.0, 'unixepoch') AS created_at,
                strftime('%Y-%m-%dT%H:%M:%fZ', i.updated_at / 1000.0, 'unixepoch') AS updated_at
            FROM items i JOIN users u ON u.id = i.user_id ORDER BY i.id
            """
        var shelfExport: [Double] = []
        var shellExport: [Double] = []
        var exportPeaks: (shelf: Int, shell: Int) = (0, 0)
        for _ in 0..<runs {
            let shelf = try check(run(shelfPath, ["export", "items", "--db", source, "-o", path("items.csv")]))
            shelfExport.append(Double(items) / shelf.seconds)
            exportPeaks.shelf = max(exportPeaks.shelf, shelf.peakKilobytes)
            let shell = try check(
                run("/usr/bin/sqlite3", ["-csv", "-header", source, selectSQL], output: path("shell.csv")))
            shellExport.append(Double(items) / shell.seconds)
            exportPeaks.shell = max(exportPeaks.shell, shell.peakKilobytes)
        }
        report.compare(
            "transfer.export_csv", unit: "rows/s", shelf: shelfExport,
            against: [("sqlite3 -csv", shellExport, "ratio ≥ 1.0")])
        report.print(
            Figure(
                name: "transfer.export_peak_rss", unit: "MB", value: Double(exportPeaks.shelf) / 1024, target: "≤ 64 MB"
            ))
        report.print(
            Figure(
                name: "transfer.export_peak_rss.sqlite3", unit: "MB", value: Double(exportPeaks.shell) / 1024,
                target: ""))

        // Import: the same rows in the table's own columns for the shell.
        try check(
            run(
                "/usr/bin/sqlite3",
                [
                    "-csv", source,
                    "SELECT id, user_id, title, notes, status, priority, created_at, updated_at, version FROM items ORDER BY id",
                ], output: path("native.csv")))
        var shelfImport: [Double] = []
        var shellImport: [Double] = []
        var importPeaks: (shelf: Int, shell: Int) = (0, 0)
        for _ in 0..<runs {
            let a = try copy(template, to: path("a.sqlite"))
            let shelf = try check(run(shelfPath, ["import", "items", path("items.csv"), "--db", a, "--quiet"]))
            shelfImport.append(Double(items) / shelf.seconds)
            importPeaks.shelf = max(importPeaks.shelf, shelf.peakKilobytes)
            let b = try copy(template, to: path("b.sqlite"))
            let shell = try check(run("/usr/bin/sqlite3", [b, ".import --csv \(path("native.csv")) items"]))
            shellImport.append(Double(items) / shell.seconds)
            importPeaks.shell = max(importPeaks.shell, shell.peakKilobytes)
            try check(run("/usr/bin/sqlite3", [b, "SELECT count(*) FROM items"], output: path("count.txt")))
            let count = try String(contentsOfFile: path("count.txt"), encoding: .utf8)
            guard count.trimmingCharacters(in: .whitespacesAndNewlines) == String(items) else {
                throw BenchmarkError("the sqlite3 import holds \(count) rows, not \(items)")
            }
        }
        report.compare(
            "transfer.import_csv", unit: "rows/s", shelf: shelfImport,
            against: [("sqlite3 .import --csv", shellImport, "ratio ≥ 1.0")])
        report.print(
            Figure(
                name: "transfer.import_peak_rss", unit: "MB", value: Double(importPeaks.shelf) / 1024, target: "≤ 64 MB"
            ))
        report.print(
            Figure(
                name: "transfer.import_peak_rss.sqlite3", unit: "MB", value: Double(importPeaks.shell) / 1024,
                target: ""))
    }

    private func copy(_ template: String, to path: String) throws -> String {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: template, toPath: path)
        return path
    }

    struct Finished {
        let status: Int32
        let seconds: Double
        let peakKilobytes: Int
        let command: String
    }

    @discardableResult
    private func check(_ finished: Finished) throws -> Finished {
        guard finished.status == 0 else { throw BenchmarkError("\(finished.command) exited with \(finished.status)") }
        return finished
    }

    /// Runs a process to its end (stdout to `output`, or /dev/null); its wall time and peak RSS.
    private func run(_ executable: String, _ arguments: [String], output: String = "/dev/null") throws -> Finished {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
            throw BenchmarkError("cannot start \(executable)")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Finished(
            status: exit, seconds: seconds, peakKilobytes: usage.ru_maxrss,
            command: ([executable] + arguments.map { String($0.prefix(40)) }).joined(separator: " "))
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
