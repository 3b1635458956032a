import Foundation

/// `shelf-benchmarks transfer`: the release `shelf` binary's import and export of 1,000,000
/// items (`--items N`, ~1,000 users `--users N`) against the `sqlite3` shell on the same file
/// and schema, each command a process of its own, timed and measured for peak RSS in a fresh
/// process (`FreshProcess`), `--runs` times (5) alternating which side goes first; medians.
///
/// - import: `shelf import items FILE` into a migrated store holding the users, against
///   (a) the shell's `.import` into a view whose INSTEAD OF trigger inserts into `items`, every
///   index and trigger live, and (b) the staged shell script, the practical floor
///   (`ShellBaselines`). Every result must hold the same rows (`ShellBaselines.fingerprint`);
///   the first Shelf and staged results pass `integrity_check` and the FTS integrity check.
/// - upsert, replace: `--mode upsert|replace` of N rows (90% updates, 10% new; replace also
///   deletes the 10% the file lacks) against a store of N items. Shelf only.
/// - export: `shelf export items` as csv, json and ndjson against `sqlite3 -csv` of the same
///   rows and columns, by ID.
/// - users: import and export of 1,000,000 users (`--user-rows N`). Shelf only.
///
/// `--only import|upsert|export|users` runs one part; `--before PATH` runs another `shelf`
/// binary (one built from an older commit) beside this one as one more baseline. Ratios of
/// times are speed-ups: the baseline's median time over Shelf's.
struct TransferSuite {
    let items: Int
    let users: Int
    let userRows: Int
    let runs: Int
    let report: Report
    let shelfPath: String
    let beforePath: String?
    let only: String?

    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shelf-transfer-bench-\(getpid())")

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func wants(_ part: String) -> Bool { only == nil || only == part }

    /// The machine's load averages (/proc/loadavg), for the notes: other work skews times.
    private var load: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return "load " + text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The `shelf` binaries measured: this one, and the `--before` one.
    private var binaries: [(label: String, path: String)] {
        [("shelf", shelfPath)] + (beforePath.map { [("before", $0)] } ?? [])
    }

    func run() async throws {
        guard only.map({ ["import", "upsert", "export", "users"].contains($0) }) ?? true else {
            throw BenchmarkError("--only takes import, upsert, export or users for transfer")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        report.header()
        let probe = try FreshProcess.probe()
        report.print(
            Figure(
                name: "transfer.rss_check.true", unit: "MB", value: probe.peakMegabytes,
                target: "≈ 1–2 MB (the method's check)"))

        let data = try TransferData()
        let usersCSV = try data.users(users, report: report)
        let itemsCSV = try data.items(items, users: users, report: report)

        // A migrated store (no rows), and the template: that store with the users.
        let bare = path("bare.sqlite")
        try FreshProcess.setup([shelfPath, "migrate", "--db", bare])
        try checkpoint(bare)
        let template = path("template.sqlite")
        try copy(bare, to: template)
        try FreshProcess.setup([shelfPath, "import", "users", usersCSV, "--db", template, "--quiet"])
        try checkpoint(template)
        let shell = try ShellBaselines(template: template)

        let full = path("full.sqlite")
        if wants("import") {
            try importItems(itemsCSV, template: template, shell: shell, keep: full)
        }
        if wants("upsert") || wants("export"), !FileManager.default.fileExists(atPath: full) {
            // The store of N items the other parts start from, by the fastest way (untimed).
            try copy(template, to: full)
            try runScript(shell.stagedImport(csv: itemsCSV), database: full)
            try checkpoint(full)
        }
        if wants("upsert") {
            try upsertItems(try data.changedItems(items, users: users, report: report), full: full)
        }
        if wants("export") { try exportItems(full) }
        if wants("users") { try importAndExportUsers(try data.users(userRows, report: report), bare: bare) }
    }

    // MARK: Import

    private func importItems(_ csv: String, template: String, shell: ShellBaselines, keep full: String) throws {
        report.note("import: \(Formatting.thousands(items)) items; the staged script drops \(shell.dropped); \(load)")
        let live = path("live.sql")
        let staged = path("staged.sql")
        try Data(shell.liveImport(csv: csv).utf8).write(to: URL(fileURLWithPath: live))
        try Data(shell.stagedImport(csv: csv).utf8).write(to: URL(fileURLWithPath: staged))
        let sides = binaries.map(\.label) + ["sqlite3 live", "sqlite3 staged"]
        var samples: [String: [FreshProcess.Measured]] = [:]
        var expected: String?
        for run in 0..<runs {
            for side in run % 2 == 0 ? sides : sides.reversed() {
                let database = path("import.sqlite")
                try copy(template, to: database)
                let measured: FreshProcess.Measured
                switch side {
                case "sqlite3 live":
                    measured = try FreshProcess.run(ShellBaselines.shell, ["-bail", database], input: live)
                case "sqlite3 staged":
                    measured = try FreshProcess.run(ShellBaselines.shell, ["-bail", database], input: staged)
                default:
                    let binary = binaries.first { $0.label == side }?.path ?? shelfPath
                    measured = try FreshProcess.run(binary, ["import", "items", csv, "--db", database, "--quiet"])
                }
                samples[side, default: []].append(measured)
                let fingerprint = try ShellBaselines.fingerprint(database, scratch: path("query"))
                report.note(
                    "  run \(run + 1) \(side): \(String(format: "%.2f", measured.seconds)) s, "
                        + "\(String(format: "%.1f", measured.peakMegabytes)) MB; \(fingerprint)")
                if let expected, fingerprint != expected {
                    throw BenchmarkError("\(side) wrote other rows than the first side: \(fingerprint) ≠ \(expected)")
                }
                expected = fingerprint
                if run == 0, side == "shelf" || side == "sqlite3 staged" {
                    try ShellBaselines.checkIntegrity(database, scratch: path("query"))
                    report.note("  \(side): integrity_check and the FTS integrity-check pass")
                }
                if side == "shelf", !FileManager.default.fileExists(atPath: full) {
                    try checkpoint(database)
                    try copy(database, to: full)
                }
            }
        }
        let shelf = samples["shelf"] ?? []
        let baselines: [(name: String, samples: [Double], target: String)] =
            [
                ("sqlite3 .import, live", (samples["sqlite3 live"] ?? []).map(\.seconds), "speed-up ≥ 5×"),
                ("sqlite3 staged (floor)", (samples["sqlite3 staged"] ?? []).map(\.seconds), "report"),
            ] + (samples["before"].map { [("shelf --before", $0.map(\.seconds), "report")] } ?? [])
        report.compare(
            "transfer.import_items", unit: "s", shelf: shelf.map(\.seconds), against: baselines, speedup: true)
        report.print(
            Figure(
                name: "transfer.import_items.rate", unit: "rows/s", value: Double(items) / median(shelf.map(\.seconds)),
                target: "1M in ≤ 15 s: ≥ 66,667 rows/s"))
        report.compare(
            "transfer.import_items.peak_rss", unit: "MB", shelf: shelf.map(\.peakMegabytes),
            against: [
                ("sqlite3 .import, live", (samples["sqlite3 live"] ?? []).map(\.peakMegabytes), "≤ 32 MB"),
                ("sqlite3 staged (floor)", (samples["sqlite3 staged"] ?? []).map(\.peakMegabytes), "≤ 32 MB"),
            ] + (samples["before"].map { [("shelf --before", $0.map(\.peakMegabytes), "≤ 32 MB")] } ?? []))
    }

    // MARK: Upsert and replace

    private func upsertItems(_ csv: String, full: String) throws {
        report.note(
            "upsert, replace: \(Formatting.thousands(items)) rows against \(Formatting.thousands(items)) items; \(load)"
        )
        let modes = ["upsert", "replace"]
        var samples: [String: [FreshProcess.Measured]] = [:]
        for run in 0..<runs {
            let order = binaries.flatMap { binary in modes.map { (binary, $0) } }
            for (binary, mode) in run % 2 == 0 ? order : order.reversed() {
                let database = path("upsert.sqlite")
                try copy(full, to: database)
                let measured = try FreshProcess.run(
                    binary.path, ["import", "items", csv, "--mode", mode, "--db", database, "--quiet"])
                samples["\(binary.label) \(mode)", default: []].append(measured)
                let count = try ShellBaselines.query(
                    database,
                    "SELECT count(*), (SELECT row_count FROM shelf_changes WHERE table_name = 'items') FROM items",
                    scratch: path("query")
                ).trimmingCharacters(in: .whitespacesAndNewlines)
                let expected = mode == "upsert" ? items + items / 10 : items
                guard count == "\(expected)|\(expected)" else {
                    throw BenchmarkError(
                        "\(binary.label) --mode \(mode) left \(count) items (count|row_count), not \(expected)")
                }
                report.note(
                    "  run \(run + 1) \(binary.label) \(mode): \(String(format: "%.2f", measured.seconds)) s, "
                        + "\(String(format: "%.1f", measured.peakMegabytes)) MB")
            }
        }
        for mode in modes {
            let shelf = samples["shelf \(mode)"] ?? []
            if let before = samples["before \(mode)"] {
                report.compare(
                    "transfer.\(mode)_items", unit: "s", shelf: shelf.map(\.seconds),
                    against: [("shelf --before", before.map(\.seconds), "speed-up ≥ 3×")], speedup: true)
                report.compare(
                    "transfer.\(mode)_items.peak_rss", unit: "MB", shelf: shelf.map(\.peakMegabytes),
                    against: [("shelf --before", before.map(\.peakMegabytes), "≤ 32 MB")])
            } else {
                report.print(
                    Figure(
                        name: "transfer.\(mode)_items", unit: "s", value: median(shelf.map(\.seconds)),
                        target: "report; ≥ 3× today"))
                report.print(
                    Figure(
                        name: "transfer.\(mode)_items.peak_rss", unit: "MB", value: median(shelf.map(\.peakMegabytes)),
                        target: "≤ 32 MB"))
            }
        }
    }

    // MARK: Export

    private func exportItems(_ full: String) throws {
        report.note("export: \(Formatting.thousands(items)) items; \(load)")
        let formats = ["csv", "json", "ndjson"]
        let sides = binaries.flatMap { binary in formats.map { "\(binary.label) \($0)" } } + ["sqlite3 -csv"]
        var samples: [String: [FreshProcess.Measured]] = [:]
        for run in 0..<runs {
            for side in run % 2 == 0 ? sides : sides.reversed() {
                let measured: FreshProcess.Measured
                let output: String
                if side == "sqlite3 -csv" {
                    output = path("shell.csv")
                    measured = try FreshProcess.run(
                        ShellBaselines.shell, ["-csv", "-header", full, ShellBaselines.exportSelect], output: output)
                } else {
                    let parts = side.split(separator: " ")
                    let binary = binaries.first { $0.label == parts[0] }?.path ?? shelfPath
                    output = path("export.\(parts[1])")
                    measured = try FreshProcess.run(
                        binary, ["export", "items", "--db", full, "-o", output, "--quiet"])
                }
                let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
                guard size > items * 40 else { throw BenchmarkError("\(side) wrote only \(size) bytes") }
                unlink(output)
                samples[side, default: []].append(measured)
                report.note(
                    "  run \(run + 1) \(side): \(String(format: "%.2f", measured.seconds)) s, "
                        + "\(String(format: "%.1f", measured.peakMegabytes)) MB, \(size / 1_000_000) MB written")
            }
        }
        let shell = samples["sqlite3 -csv"] ?? []
        for format in formats {
            let shelf = samples["shelf \(format)"] ?? []
            var baselines: [(name: String, samples: [Double], target: String)] = [
                ("sqlite3 -csv", shell.map(\.seconds), "speed-up ≥ 1.8×")
            ]
            if let before = samples["before \(format)"] {
                baselines.append(("shelf --before", before.map(\.seconds), "report"))
            }
            report.compare(
                "transfer.export_items.\(format)", unit: "s", shelf: shelf.map(\.seconds), against: baselines,
                speedup: true)
            report.compare(
                "transfer.export_items.\(format).peak_rss", unit: "MB", shelf: shelf.map(\.peakMegabytes),
                against: [("sqlite3 -csv", shell.map(\.peakMegabytes), "flat")])
        }
    }

    // MARK: Users

    private func importAndExportUsers(_ csv: String, bare: String) throws {
        report.note("users: \(Formatting.thousands(userRows)) users; \(load)")
        var imports: [FreshProcess.Measured] = []
        var exports: [FreshProcess.Measured] = []
        let database = path("users.sqlite")
        for run in 0..<runs {
            try copy(bare, to: database)
            let imported = try FreshProcess.run(shelfPath, ["import", "users", csv, "--db", database, "--quiet"])
            let count = try ShellBaselines.query(database, "SELECT count(*) FROM users", scratch: path("query"))
            guard count.trimmingCharacters(in: .whitespacesAndNewlines) == "\(userRows)" else {
                throw BenchmarkError("the users import left \(count) users, not \(userRows)")
            }
            let output = path("users.csv")
            let exported = try FreshProcess.run(
                shelfPath, ["export", "users", "--db", database, "-o", output, "--quiet"])
            unlink(output)
            imports.append(imported)
            exports.append(exported)
            report.note(
                "  run \(run + 1): import \(String(format: "%.2f", imported.seconds)) s, "
                    + "\(String(format: "%.1f", imported.peakMegabytes)) MB; export "
                    + "\(String(format: "%.2f", exported.seconds)) s, \(String(format: "%.1f", exported.peakMegabytes)) MB"
            )
        }
        for (name, samples) in [("import_users", imports), ("export_users", exports)] {
            report.print(Figure(name: "transfer.\(name)", unit: "s", value: median(samples.map(\.seconds)), target: ""))
            report.print(
                Figure(
                    name: "transfer.\(name).peak_rss", unit: "MB", value: median(samples.map(\.peakMegabytes)),
                    target: name == "import_users" ? "≤ 32 MB" : "flat"))
        }
    }

    // MARK: Files

    private func runScript(_ script: String, database: String) throws {
        let file = path("script.sql")
        try Data(script.utf8).write(to: URL(fileURLWithPath: file))
        try FreshProcess.setup([ShellBaselines.shell, "-bail", database], input: file)
    }

    /// Moves the WAL's pages into the database file, so that the file alone is the store.
    private func checkpoint(_ database: String) throws {
        try FreshProcess.setup([ShellBaselines.shell, database, "PRAGMA wal_checkpoint(TRUNCATE)"])
    }

    /// Copies a checkpointed store over `path` (its WAL and shared memory removed first).
    private func copy(_ source: String, to path: String) throws {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
