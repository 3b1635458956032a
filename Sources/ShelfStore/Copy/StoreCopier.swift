/// One copy from a store's snapshot into another store's transaction: the work behind
/// `Store.copy(to:options:progress:)`. Blocks the calling thread.
package struct StoreCopier {
    let source: Store
    let target: Store
    let options: CopyOptions
    let progress: (CopyProgress) -> Void
    let isCancelled: () -> Bool
    /// A new, empty store that takes what the target held before a replacing copy deletes it
    /// (a restore that keeps what it replaces): copied from the copy's own transaction, after
    /// its lock and its check for other processes, so it is exactly what was replaced.
    var keepReplaced: Store? = nil

    /// Rows read and written at a time.
    static let pageSize = 1000

    /// Thrown inside the target's transaction to roll it back when the two sides differ.
    private struct Mismatch: Error {
        let report: CopyReport
    }

    func run() throws -> CopyReport {
        let from = source.backend
        let into = target.backend
        guard from.copyIdentity != into.copyIdentity else {
            throw StoreError(
                .invalidValue,
                "\(source.location) and \(target.location) are the same database; copy into another one")
        }
        if options.replace, let other = try into.otherUsers() {
            throw StoreError(
                .busy,
                "\(target.location) is open in \(other); replacing its contents under it would pull its data away, "
                    + "so stop it (or wait for it to end), then try again")
        }
        do {
            return try from.withCopySnapshot { snapshot in
                try copy(from: snapshot, into: into)
            }
        } catch let mismatch as Mismatch {
            return mismatch.report
        }
    }

    private func copy(from snapshot: any CopySnapshot, into: any StoreBackend) throws -> CopyReport {
        let unknown = CopyTable.unknownColumns(in: try snapshot.schemaColumns(), ignoring: snapshot.derivedColumns)
        guard unknown.isEmpty else {
            throw StoreError(
                .invalidValue,
                "\(source.location) holds data that shelf copy does not know how to carry ("
                    + unknown.joined(separator: ", ")
                    + "); it was added by another program or a newer shelf, so copy it with that shelf, or remove it")
        }
        var totals: [CopyTable: Int] = [:]
        var lastIDs: [CopyTable: Int64] = [:]
        for table in CopyTable.allCases {
            totals[table] = try snapshot.rowCount(table)
            lastIDs[table] = try snapshot.lastID(table)
        }
        let totalRows = totals.values.reduce(0, +)
        return try into.withCopyTransaction { transaction in
            let replacing = try prepare(transaction, lastIDs: &lastIDs)
            if let keep = keepReplaced { try self.keep(transaction, in: keep) }
            try transaction.beginBulkLoad()
            if replacing { try transaction.deleteAll() }
            var fingerprint = CopyFingerprint()
            var counts: [CopyReport.TableCount] = []
            var copied = 0
            var owners = OwnerCheck()
            for table in CopyTable.allCases {
                fingerprint.begin(table)
                var rows = 0
                var after = Int64.min
                while true {
                    if isCancelled() { throw CancellationError() }
                    let page = try snapshot.rows(table, after: after, limit: Self.pageSize)
                    guard let last = page.last?.first?.integer else { break }
                    owners.check(page, of: table)
                    // Before the insert, whose failure would only say "foreign key constraint".
                    if let orphans = owners.orphans(of: table) { throw orphaned(orphans, of: table) }
                    do {
                        // Before the insert, whose failure would only quote the target's trigger
                        // (a SQLite target) or its encoding (PostgreSQL), not the row.
                        try Self.refuseNUL(in: page, of: table)
                        try transaction.insert(page, into: table)
                    } catch let refusal as CopyValueRefusal {
                        throw refused(refusal)
                    }
                    for row in page { fingerprint.add(row) }
                    rows += page.count
                    copied += page.count
                    after = last
                    progress(CopyProgress(table: table.name, copiedRows: copied, totalRows: totalRows, checking: false))
                    if page.count < Self.pageSize { break }
                }
                counts.append(CopyReport.TableCount(table: table.name, rows: rows))
            }
            try transaction.finishBulkLoad(isCancelled: isCancelled)
            progress(CopyProgress(table: "", copiedRows: copied, totalRows: totalRows, checking: true))
            let report = CopyReport(
                source: CopyReport.Side(counts: counts, fingerprint: fingerprint.finalized()),
                target: try Self.side(of: transaction, isCancelled: isCancelled))
            guard report.matches else { throw Mismatch(report: report) }
            if isCancelled() { throw CancellationError() }
            // Last, once nothing but the commit can fail: a PostgreSQL sequence's `setval` is not
            // undone by a rollback, so moved earlier, a copy that failed in its index builds,
            // its read-back or a cancellation left the target's sequences moved (issue 25).
            for table in CopyTable.allCases {
                try transaction.advanceSequence(of: table, past: lastIDs[table] ?? 0)
            }
            return report
        }
    }

    /// Copies what `transaction` holds now (the target before it is replaced) into `keep`,
    /// read back and compared there as any copy is; throws when that copy fails or differs,
    /// so that nothing is replaced without its copy kept.
    private func keep(_ transaction: any CopyTransaction, in keep: Store) throws {
        let copier = StoreCopier(
            source: target, target: keep, options: CopyOptions(), progress: { _ in }, isCancelled: isCancelled)
        let report: CopyReport
        do {
            report = try copier.copy(from: transaction, into: keep.backend)
        } catch let mismatch as Mismatch {
            report = mismatch.report
        } catch let error as StoreError {
            var wrapped = StoreError(
                error.code,
                "cannot keep a copy of what \(target.location) holds in \(keep.location) before replacing it: "
                    + "\(error.message); nothing was replaced")
            // The caller, which knows the file the user named for it, says where.
            if error.isDiskFull { wrapped.markDiskFull() }
            throw wrapped
        }
        guard report.matches else {
            throw StoreError(
                .database,
                "the copy of what \(target.location) holds, kept in \(keep.location) before replacing it, differs from "
                    + "it when read back (fingerprint \(report.target.fingerprint), not \(report.source.fingerprint)); "
                    + "nothing was replaced. Try again, and report it if it happens again")
        }
    }

    /// The error for a source value the target cannot store: where it is, and what to do,
    /// in the terms of what the copy is for.
    private func refused(_ refusal: CopyValueRefusal) -> StoreError {
        switch options.purpose {
        case .copy:
            // A byte that can simply go (NUL) is removed by one UPDATE, said exactly. Through a
            // blob: SQLite's text functions (replace, length) stop at a NUL.
            var correction = "correct that value in \(source.location)"
            if let removal = refusal.removal, let row = refusal.row, source.backend.copyIdentity.hasPrefix("sqlite:") {
                let bytes = "CAST(\(refusal.column) AS BLOB)"
                let update =
                    "UPDATE \(refusal.table) SET \(refusal.column) = substr(\(bytes), 1, instr(\(bytes), \(removal)) - 1) "
                    + "|| substr(\(bytes), instr(\(bytes), \(removal)) + 1) WHERE id = \(row)"
                correction =
                    "remove it in \(source.location) (sqlite3 \(ShellQuoting.quoted(source.location)) \"\(update)\" "
                    + "removes one; run it again while the copy still finds one)"
            }
            return StoreError(
                .invalidValue,
                "\(source.location) holds, in \(refusal.place), \(refusal.problem); \(correction), then copy again; "
                    + "nothing was written to \(target.location)")
        case .restore(let backup):
            let quoted = ShellQuoting.quoted(backup)
            let shown =
                refusal.row.map {
                    " (sqlite3 \(quoted) \"SELECT hex(\(refusal.column)) FROM \(refusal.table) WHERE id = \($0)\" shows it)"
                } ?? ""
            return StoreError(
                .invalidValue,
                "the backup \(backup) holds, in \(refusal.place), \(refusal.problem), so it cannot be restored into "
                    + "\(target.location). Correct that value in a copy of the backup\(shown), then restore that "
                    + "copy; or restore another backup. Nothing was restored: \(target.location) is as it was")
        }
    }

    /// Throws a `CopyValueRefusal` for the first text value of `page` that holds the NUL
    /// character: no shelf store keeps one (SQLite's triggers of Migrations/0009 refuse it,
    /// PostgreSQL cannot store it), but a source whose trigger another program dropped may hold
    /// one, and the target's own refusal named neither the row nor the column (issue 25, F10).
    static func refuseNUL(in page: [CopyRow], of table: CopyTable) throws {
        let text = table.columns.indices.filter { table.columns[$0].kind == .text }
        for row in page {
            for index in text where index < row.count {
                guard case .text(let bytes) = row[index], bytes.withUnsafeBufferPointer(UTF8Validation.containsNUL)
                else { continue }
                throw CopyValueRefusal(
                    table: table.name, row: row.first?.integer, column: table.columns[index].name,
                    problem: "the NUL character (U+0000), which a shelf store does not keep", removal: "x'00'")
            }
        }
    }

    /// The error for rows of `table` whose user is gone.
    private func orphaned(_ orphans: OwnerCheck.Orphans, of table: CopyTable) -> StoreError {
        let column = table.userReference?.column ?? "user_id"
        let examples = orphans.examples.map { "row \($0.row) names user \($0.owner)" }
        return StoreError(
            .invalidValue,
            "\(source.location) holds \(table.name) rows whose user is gone (\(column) names no row of users): "
                + Self.listed(examples) + (orphans.more ? " and more" : "")
                + "; another program deleted users with foreign keys off (sqlite3's PRAGMA foreign_key_check, or "
                + "psql's SELECT id, \(column) FROM \(table.name) WHERE \(column) NOT IN (SELECT id FROM users), "
                + "lists every such row). Delete those rows or point them at an existing user in \(source.location), "
                + "then copy again; nothing was written")
    }

    /// Refuses a target that holds rows unless replacing, and raises `lastIDs` to the IDs the
    /// target handed out before, so none is handed out again. Returns whether the target's rows
    /// must be deleted first.
    private func prepare(_ transaction: any CopyTransaction, lastIDs: inout [CopyTable: Int64]) throws -> Bool {
        var present: [String] = []
        for table in CopyTable.allCases {
            let count = try transaction.rowCount(table)
            if count > 0 { present.append(table.counted(count)) }
            lastIDs[table] = max(lastIDs[table] ?? 0, try transaction.lastID(table))
        }
        guard !present.isEmpty else { return false }
        if !options.replace, let writer = transaction.waitedFor {
            // Another copy (or any writer) held the target when this one began, and wrote it
            // meanwhile: say so, rather than only that the target is not empty.
            throw StoreError(
                .conflict,
                "\(target.location) was written by another session while this copy waited for its lock (held by "
                    + "\(writer)): it now holds \(Self.listed(present)); nothing of this copy was written. If that "
                    + "was another copy of \(source.location), that copy is there already; if not, check what "
                    + "\(target.location) holds, and replace it with \(source.location) only if you mean to "
                    + "(shelf copy --replace)")
        }
        guard options.replace else {
            throw StoreError(
                .invalidValue,
                "\(target.location) is not empty: it holds \(Self.listed(present)); copy into an empty store "
                    + "(a new file, an empty database, or one shelf migrate just made), or replace its contents "
                    + "(shelf copy --replace)")
        }
        return true
    }

    /// Every copied row of `snapshot` (the target's transaction, as it sees itself now): row
    /// counts and fingerprint. `inspect` sees each page read, table by table in copy order.
    package static func side(
        of snapshot: any CopySnapshot, isCancelled: () -> Bool = { false },
        inspect: (CopyTable, [CopyRow]) -> Void = { _, _ in }
    ) throws -> CopyReport.Side {
        var fingerprint = CopyFingerprint()
        var counts: [CopyReport.TableCount] = []
        for table in CopyTable.allCases {
            fingerprint.begin(table)
            var rows = 0
            var after = Int64.min
            while true {
                if isCancelled() { throw CancellationError() }
                let page = try snapshot.rows(table, after: after, limit: pageSize)
                guard let last = page.last?.first?.integer else { break }
                inspect(table, page)
                for row in page { fingerprint.add(row) }
                rows += page.count
                after = last
                if page.count < pageSize { break }
            }
            counts.append(CopyReport.TableCount(table: table.name, rows: rows))
        }
        return CopyReport.Side(counts: counts, fingerprint: fingerprint.finalized())
    }

    /// "a", "a and b", "a, b and c".
    package static func listed(_ parts: [String]) -> String {
        guard parts.count > 1 else { return parts.first ?? "" }
        return parts.dropLast().joined(separator: ", ") + " and " + (parts.last ?? "")
    }
}

/// Rows whose user reference names no user of the source: the users' IDs are gathered as
/// users are copied (they come first), and every later row is checked against them.
struct OwnerCheck {
    /// The first rows found whose user is gone.
    struct Orphans {
        var examples: [(row: Int64, owner: Int64)] = []
        var more = false
    }

    private var users = Set<Int64>()
    private var found: [CopyTable: Orphans] = [:]

    /// Notes the users of a page of `users`, or checks a page of a table that refers to them.
    mutating func check(_ page: [CopyRow], of table: CopyTable) {
        if table == .users {
            for row in page { if let id = row.first?.integer { users.insert(id) } }
            return
        }
        guard let reference = table.userReference else { return }
        for row in page {
            guard reference.index < row.count, let owner = row[reference.index].integer, !users.contains(owner)
            else { continue }
            var orphans = found[table] ?? Orphans()
            if orphans.examples.count < 3 {
                orphans.examples.append((row.first?.integer ?? 0, owner))
            } else {
                orphans.more = true
            }
            found[table] = orphans
        }
    }

    /// The rows of `table` found so far whose user is gone; nil when none.
    func orphans(of table: CopyTable) -> Orphans? { found[table] }
}
